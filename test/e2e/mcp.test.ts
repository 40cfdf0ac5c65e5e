import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ALL_JOBS, type AppOnAzurite, type Backend, CHAIN_22, describeOnEachBackend, invocationHolds, JOB_FIXTURES, type JobFixture, type Mined, pollUntilDone as poll, quickRedelivery, resultProblems, type SpawnedHost, startAppOnAzurite, untilProcessIdle } from '@mcp-mining/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The product end to end: the MCP SDK's own client, over HTTP, against the function app running on the
 * local host with Durable state in Azurite, as `npm start` runs it. Every result is recomputed or checked
 * here, independently of the app. Every job is served (ENABLED_JOBS), and the contract tests run once per job
 * (testkit/jobFixtures.ts).
 *
 * Two apps on one Azurite, so that no verdict depends on how fast the machine is: one with a wait budget of 0,
 * whose start answers `running` before any status read (the poll path, cancel, a crash mid-run), and one with
 * the default budget (20 s), within which small work ends however busy the machine (the inline answer).
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: Mined | Record<string, unknown>;
    poll_after_seconds?: number;
    next?: string;
    progress?: Record<string, number>;
    reason?: 'error' | 'cancelled' | 'terminated';
    error?: string;
}

function backendSettings(backend: Backend, waitBudgetSeconds: number): Record<string, string> {
    return { WAIT_BUDGET_SECONDS: String(waitBudgetSeconds), ...ALL_JOBS, ...quickRedelivery(backend) };
}

function verifyChain(result: Mined, difficulty: number, blocks: number): void {
    assert.deepEqual(resultProblems(result, difficulty, blocks, 12), []);
}

describeOnEachBackend('MCP end to end: the SDK client against the app on the local host', (backend) => {
    let app: AppOnAzurite;
    let inlineApp: AppOnAzurite;
    let host: SpawnedHost;
    let mcpUrl: URL;
    const clients: Client[] = [];

    /** A client of the budget-0 app, or of the app with the default budget (`inline`). */
    async function connect(to: 'inline' | undefined = undefined): Promise<Client> {
        const client = new Client({ name: 'e2e', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(to === 'inline' ? inlineApp.mcpUrl : mcpUrl));
        clients.push(client);
        return client;
    }

    async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void) {
        const result = (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {})) as CallToolResult;
        return result;
    }

    function statusOf(result: CallToolResult): Status {
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        const status = result.structuredContent as unknown as Status;
        // The same JSON as text, for clients that ignore structured output.
        const text = result.content.find((c) => c.type === 'text');
        assert.deepEqual(JSON.parse(text && 'text' in text ? text.text : '{}'), status);
        return status;
    }

    /** The instances of the task hub that are pending or running, through the Durable management API. */
    async function unfinishedInstanceIds(): Promise<string[]> {
        const response = await fetch(`${host.url}/runtime/webhooks/durabletask/instances?runtimeStatus=Pending,Running`);
        assert.equal(response.status, 200);
        return ((await response.json()) as Array<{ instanceId: string; runtimeStatus: string }>)
            .filter((instance) => instance.runtimeStatus === 'Pending' || instance.runtimeStatus === 'Running')
            .map((instance) => instance.instanceId);
    }

    const pollUntilDone = (client: Client, id: string, timeoutMs?: number, get = 'get_mining_result') =>
        poll(async (workflowId) => statusOf(await call(client, get, { workflow_id: workflowId })), id, timeoutMs);

    before(async () => {
        app = await startAppOnAzurite(`mcp${backend}`, backendSettings(backend, 0), { durable: backend });
        ({ host, mcpUrl } = app);
        inlineApp = await startAppOnAzurite(`mcpinline${backend}`, backendSettings(backend, 20), { durable: backend, azurite: app.azurite });
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        // The crash test replaces the host: stop the one running now.
        await host?.stop();
        await inlineApp?.stop();
        await app?.stop();
    });

    test('tools/list: every served job\'s three tools, in the registry\'s order', async () => {
        const { tools } = await (await connect()).listTools();
        assert.deepEqual(
            tools.map((t) => t.name),
            JOB_FIXTURES.flatMap(({ tools: { start, get, cancel } }) => [start, get, cancel])
        );
    });

    for (const fixture of JOB_FIXTURES) {
        const { start, get, cancel } = fixture.tools;
        const label = `[${fixture.job}]`;

        test(`${label} tools/list: three tools with input and output schemas, annotations and an imperative description`, async () => {
            const client = await connect();
            const tools = (await client.listTools()).tools.filter((t) => [start, get, cancel].includes(t.name));
            assert.deepEqual(tools.map((t) => t.name).sort(), [cancel, get, start].sort());
            for (const tool of tools) {
                assert.equal(tool.inputSchema.type, 'object');
                assert.equal(tool.outputSchema?.type, 'object');
                assert.ok(tool.annotations, `${tool.name} has annotations`);
            }
            assert.match(tools.find((t) => t.name === start)?.description ?? '', new RegExp(`call ${get}`, 'i'));
            assert.deepEqual(tools.find((t) => t.name === get)?.inputSchema.required, ['workflow_id']);
        });

        test(`${label} small work completes inline, and the result checks out`, async () => {
            const client = await connect('inline');
            const status = statusOf(await call(client, start, fixture.inline));
            assert.equal(status.status, 'completed');
            fixture.check(status.result, fixture.inline);
            // The same workflow, asked again, gives the same answer.
            const again = statusOf(await call(client, get, { workflow_id: status.workflow_id }));
            // The start's answer may also say what the run cost (mining: blocks × 2^difficulty); the get tool's does not.
            assert.deepEqual({ ...again, ...fixture.cost(fixture.inline) }, status);
        });

        test(`${label} past the wait budget the tool answers running with a workflow id, and polling reaches completed`, async () => {
            const client = await connect();
            const progress: { progress: number; total?: number }[] = [];
            const total = fixture.progressTotal(fixture.pastBudget);
            const first = statusOf(await call(client, start, fixture.pastBudget, (p) => progress.push(p as { progress: number; total?: number })));
            assert.equal(first.status, 'running');
            assert.match(first.workflow_id, /^[A-Za-z0-9-]{1,100}$/);
            assert.equal(first.poll_after_seconds, 5);
            assert.equal(first.next, `Call ${get} with workflow_id "${first.workflow_id}" in about 5 seconds.`);
            assert.ok(first.progress && Object.values(first.progress).includes(total), JSON.stringify(first.progress));
            // Whatever notifications came are about this run. (That they come during a wait, and keep a call alive
            // past a client timeout, is test/e2e/tasks.test.ts's.)
            assert.ok(progress.every((p) => p.total === total), 'progress notifications about this run');

            const done = await pollUntilDone(client, first.workflow_id, undefined, get);
            assert.equal(done.status, 'completed', JSON.stringify(done));
            fixture.check(done.result, fixture.pastBudget);
        });

        test(`${label} unknown and malformed ids are not_found, without guessing`, async () => {
            const client = await connect();
            for (const id of ['00000000-0000-4000-8000-000000000000', '../../admin', 'a'.repeat(101), 'has space', '', 'ünï']) {
                for (const tool of [get, cancel]) {
                    const status = statusOf(await call(client, tool, { workflow_id: id }));
                    assert.equal(status.status, 'not_found', `${tool} ${JSON.stringify(id)}`);
                    assert.equal(status.workflow_id, id);
                    assert.equal(status.error, fixture.notFound.error);
                    assert.equal(status.next, fixture.notFound.next);
                }
            }
        });

        test(`${label} a failing workflow gives failed with reason error and a message safe to show`, async () => {
            // Started through the Durable API with an input its code refuses, under an id of the shared tenant
            // (every caller's, as App Service Authentication is off here).
            const res = await fetch(`${host.url}/runtime/webhooks/durabletask/orchestrators/${fixture.failing.orchestrator}/shared-${randomUUID()}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(fixture.failing.input),
            });
            assert.equal(res.status, 202);
            const { id } = (await res.json()) as { id: string };
            const client = await connect();
            const status = await pollUntilDone(client, id, undefined, get);
            assert.equal(status.status, 'failed');
            assert.equal(status.reason, 'error');
            assert.ok(status.error && status.error.length > 0 && status.error.length <= 500);
            assert.doesNotMatch(status.error, /StackTrace|\bat .*\.js:\d+|\{"/, 'no stack or raw details');
            assert.match(status.next ?? '', /^Do not poll again\./);
        });

        test(`${label} arguments out of bounds are tool errors that name the argument and its bound`, async () => {
            const client = await connect();
            for (const [args, bound] of fixture.outOfBounds) {
                const answer = await call(client, start, args);
                assert.equal(answer.isError, true, JSON.stringify(args));
                const text = (answer.content as Array<{ text?: string }>).map((item) => item.text ?? '').join('\n');
                assert.match(text, bound);
                // Just the argument and its bound: no SDK prefix for the model to read past.
                assert.doesNotMatch(JSON.stringify(answer.content), /Input validation error|Invalid arguments for tool/);
            }
        });

        test(`${label} ${cancel} ends a long run: failed with reason cancelled, and it stays that way`, async () => {
            const client = await connect();
            const started = statusOf(await call(client, start, fixture.long));
            assert.equal(started.status, 'running');
            // The end shows within the cancel tool's short wait on an idle machine; on a busy one it may answer
            // running first (as its description tells the model), and polling then sees the end.
            const answered = statusOf(await call(client, cancel, { workflow_id: started.workflow_id }));
            assert.ok(answered.status === 'failed' || answered.status === 'running', JSON.stringify(answered));
            const cancelled = answered.status === 'failed' ? answered : await pollUntilDone(client, started.workflow_id, 60_000, get);
            assert.equal(cancelled.status, 'failed');
            assert.equal(cancelled.reason, 'cancelled');
            assert.equal(cancelled.error, 'The workflow was cancelled before it finished.');
            assert.match(cancelled.next ?? '', /^Do not poll again\./);
            assert.deepEqual(statusOf(await call(client, get, { workflow_id: started.workflow_id })), cancelled);
            // Cancelling again keeps the status.
            assert.deepEqual(statusOf(await call(client, cancel, { workflow_id: started.workflow_id })), cancelled);
            // Terminate does not stop a running activity: MineBlock notices the end and stops its search within
            // seconds, a segment ends within a second. Until then it would share the CPUs with whatever test
            // runs next: wait for the host to go idle.
            await untilProcessIdle(host.pid, `the host after ${cancel}`);
        });
    }

    test("one job's workflow id is not_found to another job's tools, and is left running", async () => {
        const client = await connect();
        // One long run of every job; each one's id is then asked of every other job's get and cancel tools.
        const runs: Array<[JobFixture, Status]> = [];
        for (const fixture of JOB_FIXTURES) runs.push([fixture, statusOf(await call(client, fixture.tools.start, fixture.long))]);
        for (const [fixture] of runs) {
            for (const [owner, other] of runs) {
                if (owner === fixture) continue;
                for (const tool of [fixture.tools.get, fixture.tools.cancel]) {
                    const status = statusOf(await call(client, tool, { workflow_id: other.workflow_id }));
                    assert.deepEqual(status, { status: 'not_found', workflow_id: other.workflow_id, ...fixture.notFound }, tool);
                }
            }
        }
        // None was cancelled by another job's cancel tool; each is then cancelled by its own.
        for (const [fixture, started] of runs) {
            assert.equal(statusOf(await call(client, fixture.tools.get, { workflow_id: started.workflow_id })).status, 'running', fixture.job);
        }
        for (const [fixture, started] of runs) {
            const answered = statusOf(await call(client, fixture.tools.cancel, { workflow_id: started.workflow_id }));
            const ended = answered.status === 'failed' ? answered : await pollUntilDone(client, started.workflow_id, 60_000, fixture.tools.get);
            assert.equal(ended.reason, 'cancelled');
        }
        await untilProcessIdle(host.pid, 'the host after the cancels');
    });

    test('HTTP: GET and DELETE get 405 with Allow: POST; protocol mistakes get 4xx, never 500', async () => {
        for (const method of ['GET', 'DELETE']) {
            const res = await fetch(mcpUrl, { method });
            assert.equal(res.status, 405);
            assert.equal(res.headers.get('allow'), 'POST');
        }
        const post = (body: string, headers: Record<string, string>) => fetch(mcpUrl, { method: 'POST', body, headers });
        const accept = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const badJson = await post('{not json', accept);
        assert.equal(badJson.status, 400);
        const wrongAccept = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'application/json', accept: 'text/html' });
        assert.equal(wrongAccept.status, 406);
        const wrongType = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'text/plain', accept: accept.accept });
        assert.equal(wrongType.status, 415);
        const unknownMethod = await post('{"jsonrpc":"2.0","id":1,"method":"no/such"}', accept);
        assert.ok(unknownMethod.status < 500);
        assert.match(await unknownMethod.text(), /-32601/);
    });

    test('a workflow survives a crash of the host: kill it mid-run, restart, and poll to completed', async () => {
        const client = await connect();
        // A held range waits in flight (devhost/worker/holds.ts), so the kill comes mid-run on any machine.
        const holds = invocationHolds(host.url);
        await holds.hold('MineBlock');
        const started = statusOf(await call(client, 'start_mining', { difficulty: 22, blocks: 2 }));
        assert.equal(started.status, 'running');
        await holds.waitForHeld('MineBlock');
        const unfinished = await unfinishedInstanceIds();
        assert.ok(unfinished.includes(started.workflow_id), `running just before the kill: ${unfinished.join(', ')}`);
        await host.kill();
        host = await host.restart();
        // Proof that the kill came mid-run: the restarted TypeScript engine found every instance that ran just
        // before the kill still unfinished (had this run ended in between, it would count one fewer). The real
        // extension says nothing of the kind: there the proof is the status, read before the kill.
        if (backend === 'ts') {
            const resumed = await host.waitForOutput(/Resumed \d+ unfinished orchestration/, 60_000);
            assert.match(resumed, new RegExp(`Resumed ${unfinished.length} unfinished orchestration`), `expected ${unfinished.join(', ')}`);
        }
        const done = await pollUntilDone(await connect(), started.workflow_id);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.ok(done.result);
        verifyChain(done.result as Mined, 22, 2);
        // The same result an uninterrupted run gives: the chain computed independently beforehand.
        assert.deepEqual((done.result as Mined).blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })), CHAIN_22.slice(0, 2));
    });
});
