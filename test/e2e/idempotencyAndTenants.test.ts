import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALL_JOBS, type AppOnAzurite, describeOnEachBackend, JOB_FIXTURES, type JobFixture, pollUntilDone as poll, type SpawnedHost, startAppOnAzurite, untilProcessIdle } from '@mcp-mining/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Retries and strangers, end to end: the SDK client over HTTP against the app on the local host with
 * Azurite. The host runs as if App Service Authentication were on (WEBSITE_AUTH_ENABLED), so the
 * principal headers the platform would set after validating a caller name the tenant; orchestrations
 * are counted through the Durable management API's list query, the one the durable client uses.
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
}

const principal = (id: string) => ({ 'x-ms-client-principal-id': id, 'x-ms-client-principal-idp': 'aad' });

describeOnEachBackend('idempotency keys and tenants end to end', (backend) => {
    let app: AppOnAzurite;
    let host: SpawnedHost;
    const clients: Client[] = [];

    async function connect(headers: Record<string, string> = {}): Promise<Client> {
        const client = new Client({ name: 'e2e-retries', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers } }));
        clients.push(client);
        return client;
    }

    async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
    }

    function statusOf(result: CallToolResult): Status {
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        return result.structuredContent as unknown as Status;
    }

    function errorText(result: CallToolResult): string {
        assert.equal(result.isError, true, JSON.stringify(result.content));
        const text = result.content.find((c) => c.type === 'text');
        return text && 'text' in text ? text.text : '';
    }

    /** Every orchestration instance in the task hub, through the list query (GET …/instances, paged). */
    async function listInstanceIds(): Promise<string[]> {
        const ids: string[] = [];
        let token: string | null = null;
        do {
            const response: Response = await fetch(`${host.url}/runtime/webhooks/durabletask/instances?top=100`, {
                headers: token ? { 'x-ms-continuation-token': token } : {},
            });
            assert.equal(response.status, 200);
            for (const instance of (await response.json()) as Array<{ instanceId: string }>) ids.push(instance.instanceId);
            token = response.headers.get('x-ms-continuation-token');
        } while (token);
        return ids;
    }

    const pollUntilDone = (client: Client, id: string, get: string) =>
        poll(async (workflowId) => statusOf(await call(client, get, { workflow_id: workflowId })), id);

    before(async () => {
        app = await startAppOnAzurite(`retries${backend}`, { WAIT_BUDGET_SECONDS: '1', WEBSITE_AUTH_ENABLED: 'True', ...ALL_JOBS }, { durable: backend });
        host = app.host;
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await app?.stop();
    });

    for (const fixture of JOB_FIXTURES) {
        const { start, get, cancel } = fixture.tools;
        const label = `[${fixture.job}]`;

        test(`${label} fifty concurrent calls with one idempotency key start exactly one orchestration`, async () => {
            const before = new Set(await listInstanceIds());
            const args = { ...fixture.task.args, idempotency_key: `fifty-at-once-${fixture.job}` };
            const callers = await Promise.all(Array.from({ length: 50 }, () => connect()));
            const statuses = await Promise.all(callers.map(async (client) => statusOf(await call(client, start, args))));

            const ids = new Set(statuses.map((s) => s.workflow_id));
            assert.equal(ids.size, 1, `one workflow id for every call, got ${[...ids].join(', ')}`);
            const created = (await listInstanceIds()).filter((id) => !before.has(id)).sort();
            // One workflow, and the key's one claim (src/workflow/keyClaim.ts): the calls took turns at it.
            assert.deepEqual(created, [...ids, ...[...ids].map((id) => `claim-${id}`)].sort());

            // Later retries, while it runs or after it ended, still get the same workflow and start nothing.
            const [id] = ids as Set<string> & { size: 1 };
            const done = await pollUntilDone(callers[0] as Client, id as string, get);
            assert.equal(done.status, 'completed');
            const retry = statusOf(await call(callers[1] as Client, start, args));
            // A start answer may also say what the run costs (mining); the get tool's does not.
            assert.deepEqual(retry, { ...done, ...fixture.cost(fixture.task.args) });
            assert.deepEqual((await listInstanceIds()).filter((x) => !before.has(x)).sort(), created);
        });

        test(`${label} the same key with other arguments is a tool error and starts nothing`, async () => {
            const client = await connect();
            const key = `once-${fixture.job}`;
            const [args, other] = fixture.keyed;
            const first = statusOf(await call(client, start, { ...args, idempotency_key: key }));
            const count = (await listInstanceIds()).length;
            const text = errorText(await call(client, start, { ...other, idempotency_key: key }));
            assert.match(text, /idempotency_key was already used with other arguments/);
            assert.equal((await listInstanceIds()).length, count);
            assert.equal(statusOf(await call(client, start, { ...args, idempotency_key: key })).workflow_id, first.workflow_id);
        });

        test(`${label} a caller sees only its own workflows: another tenant's id is not_found, as an unknown one`, async () => {
            const alice = await connect(principal('alice'));
            const bob = await connect(principal('bob'));
            const anonymous = await connect();
            const started = statusOf(await call(alice, start, fixture.long));
            assert.equal(started.status, 'running');
            const id = started.workflow_id;

            for (const stranger of [bob, anonymous]) {
                assert.equal(statusOf(await call(stranger, get, { workflow_id: id })).status, 'not_found');
                assert.equal(statusOf(await call(stranger, cancel, { workflow_id: id })).status, 'not_found');
            }
            // Bob's cancel did not touch it; Alice's does (the end may show only after the cancel tool's short
            // wait on a busy machine: it then answers running, and polling sees the end).
            assert.equal(statusOf(await call(alice, get, { workflow_id: id })).status, 'running');
            const cancelled = statusOf(await call(alice, cancel, { workflow_id: id }));
            assert.ok(cancelled.status === 'failed' || cancelled.status === 'running', JSON.stringify(cancelled));
            assert.equal((await pollUntilDone(alice, id, get)).status, 'failed');
            // Its activity stops within seconds of the end: leave the host idle for the tests after this one.
            await untilProcessIdle(host.pid, 'the host after the cancel');

            // Keys are per tenant: the same key names different workflows for Alice and Bob.
            const [args, other] = fixture.keyed;
            const a = statusOf(await call(alice, start, { ...args, idempotency_key: `shared-key-${fixture.job}` }));
            const b = statusOf(await call(bob, start, { ...other, idempotency_key: `shared-key-${fixture.job}` }));
            assert.notEqual(a.workflow_id, b.workflow_id);
            assert.equal(statusOf(await call(bob, get, { workflow_id: a.workflow_id })).status, 'not_found');
        });
    }

    test("a key names one piece of work per tenant: used by one job, it is another job's tool error", async () => {
        const client = await connect(principal('carol'));
        const [mining, primes] = JOB_FIXTURES as [JobFixture, JobFixture];
        statusOf(await call(client, mining.tools.start, { ...mining.keyed[0], idempotency_key: 'one-key' }));
        const text = errorText(await call(client, primes.tools.start, { ...primes.keyed[0], idempotency_key: 'one-key' }));
        assert.match(text, /idempotency_key was already used with other arguments/);
    });

    test('one below MAX_ACTIVE_WORKFLOWS, twelve concurrent calls with one key and the same arguments all get its workflow, never the cap', async () => {
        const dave = await connect(principal('dave'));
        const long = { difficulty: 30, blocks: 1 };
        const others: string[] = [];
        // The default cap is 5: four running, then the key's workflow is the fifth.
        for (let i = 0; i < 4; i++) others.push(statusOf(await call(dave, 'start_mining', long)).workflow_id);
        const callers = await Promise.all(Array.from({ length: 12 }, () => connect(principal('dave'))));
        const results = await Promise.all(callers.map((client) => call(client, 'start_mining', { ...long, idempotency_key: 'the-fifth' })));
        const answers = results.map((r) => (r.isError === true ? JSON.stringify(r.content) : (r.structuredContent as unknown as Status).workflow_id));
        assert.equal(new Set(answers).size, 1, answers.join('\n'));
        assert.doesNotMatch(answers[0] ?? '', /MAX_ACTIVE_WORKFLOWS|isError|text/);
        // The cap still holds for new work.
        const refused = await call(dave, 'start_mining', long);
        assert.match(errorText(refused), /You already have 5 mining workflows running/);
        for (const id of [...others, answers[0] as string]) await call(dave, 'cancel_mining', { workflow_id: id });
        await untilProcessIdle(host.pid, 'the host after the cancels');
    });
});
