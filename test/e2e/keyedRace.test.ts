import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AppOnAzurite, describeOnEachBackend, loadEveryCore, startAppOnAzurite } from '@mcp-mining/testkit';

/**
 * start_mining calls racing with one idempotency_key and different arguments, end to end: the SDK client over
 * HTTP against the app on the local host with Azurite, on both Durable backends, with every core loaded. Both
 * backends may accept racing starts on a new id and run the first input, answer 409 to a start on a running id,
 * and let a start replace an ended one: so a call claims the key first (one claim per key, read back by every call)
 * and only the claim's holder starts the workflow. Rounds alternate a pair and a group of 8 calls
 * with mixed arguments; in every round one workflow runs, every call of its arguments is handed its id, and every
 * other call gets the key-reused error.
 */

const ROUNDS = 50;
const VARIANTS = [
    { difficulty: 4, blocks: 1 },
    { difficulty: 5, blocks: 2 },
    { difficulty: 3, blocks: 1 },
];

describeOnEachBackend('a keyed start_mining race end to end', (backend) => {
    let app: AppOnAzurite;
    let load: { stop(): Promise<void> } | undefined;
    const clients: Client[] = [];

    async function connect(): Promise<Client> {
        const client = new Client({ name: 'e2e-keyed-race', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
        clients.push(client);
        return client;
    }

    async function startMining(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
        return (await client.callTool({ name: 'start_mining', arguments: args })) as CallToolResult;
    }

    /** The orchestration as the Durable management API shows it (input included). */
    async function instance(id: string): Promise<{ input: unknown }> {
        const response = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances/${id}?showInput=true`);
        assert.ok(response.status === 200 || response.status === 202, `status ${response.status} for ${id}`);
        return (await response.json()) as { input: unknown };
    }

    /** The instance ids of the task hub: the workflows, and the claims keyed starts take (src/workflow/keyClaim.ts). */
    async function instanceIds(): Promise<{ workflows: string[]; claims: string[] }> {
        const ids: string[] = [];
        let token: string | null = null;
        do {
            const response: Response = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances?top=100`, {
                headers: token ? { 'x-ms-continuation-token': token } : {},
            });
            assert.equal(response.status, 200);
            ids.push(...((await response.json()) as Array<{ instanceId: string }>).map((i) => i.instanceId));
            token = response.headers.get('x-ms-continuation-token');
        } while (token);
        return { workflows: ids.filter((id) => !id.startsWith('claim-')), claims: ids.filter((id) => id.startsWith('claim-')) };
    }

    before(async () => {
        // MAX_STARTS_PER_MINUTE and the active cap well above a round's starts: the race, not the caps, is under test.
        const env = { WAIT_BUDGET_SECONDS: '1', MAX_STARTS_PER_MINUTE: '10000', MAX_ACTIVE_WORKFLOWS: '100', MAX_ACTIVE_WORKFLOWS_TOTAL: '1000' };
        app = await startAppOnAzurite(`keyrace${backend}`, env, { durable: backend });
        load = loadEveryCore();
    });
    after(async () => {
        await load?.stop();
        for (const client of clients) await client.close().catch(() => undefined);
        await app?.stop();
    });

    test(`${ROUNDS} rounds of concurrent calls with one key and mixed arguments: one workflow each, its id only to calls of its arguments`, async () => {
        const before = await instanceIds();
        const callers = await Promise.all(Array.from({ length: 8 }, () => connect()));
        for (let round = 0; round < ROUNDS; round++) {
            const key = `race-${round}`;
            const size = round % 2 === 0 ? 2 : 8;
            const calls = Array.from({ length: size }, (_, i) => ({ ...VARIANTS[(round + i) % (size === 2 ? 2 : VARIANTS.length)]!, idempotency_key: key }));
            const results = await Promise.all(calls.map((args, i) => startMining(callers[i]!, args)));
            const summary = results.map((r, i) => `${JSON.stringify(calls[i])} → ${r.isError ? JSON.stringify(r.content) : (r.structuredContent as { workflow_id?: unknown }).workflow_id}`);
            const ids = new Set(results.flatMap((r) => (r.isError ? [] : [String((r.structuredContent as { workflow_id: unknown }).workflow_id)])));
            assert.equal(ids.size, 1, `round ${round}: one workflow id handed out\n${summary.join('\n')}`);
            const [id] = [...ids] as [string];
            const stored = (await instance(id)).input as { difficulty: number; blocks: number };
            for (const [i, result] of results.entries()) {
                const args = calls[i]!;
                if (args.difficulty === stored.difficulty && args.blocks === stored.blocks) {
                    assert.notEqual(result.isError, true, `round ${round}: a call of the workflow's own arguments is handed its id\n${summary.join('\n')}`);
                } else {
                    assert.equal(result.isError, true, `round ${round}: a call of other arguments is never handed the id\n${summary.join('\n')}`);
                    assert.match(JSON.stringify(result.content), /idempotency_key was already used with other arguments/);
                }
            }
        }
        const after = await instanceIds();
        assert.equal(after.workflows.length, before.workflows.length + ROUNDS, 'one workflow per key');
        assert.equal(after.claims.length, before.claims.length + ROUNDS, 'one claim per key');
    });
});
