import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startAppOnAzurite, type AppOnAzurite } from '../support/appOnAzurite';
import { describeOnEachBackend } from '../support/backends';

/**
 * Two start_mining calls racing with one idempotency_key and different arguments, end to end: the SDK
 * client over HTTP against the app on the local host with Azurite, on both Durable backends. The real
 * extension's Azure Storage provider (and the TypeScript engine, which starts as it does) may accept both
 * racing starts on a new id and run the first input, or answer 409 to the second, so neither call can tell
 * from the start that it lost: the app must find out by reading the workflow back.
 */

const PAIRS = 8;

describeOnEachBackend('a keyed start_mining race end to end', (backend) => {
    let app: AppOnAzurite;
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

    async function instanceCount(): Promise<number> {
        let count = 0;
        let token: string | null = null;
        do {
            const response: Response = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances?top=100`, {
                headers: token ? { 'x-ms-continuation-token': token } : {},
            });
            assert.equal(response.status, 200);
            count += ((await response.json()) as unknown[]).length;
            token = response.headers.get('x-ms-continuation-token');
        } while (token);
        return count;
    }

    before(async () => {
        app = await startAppOnAzurite(`keyrace${backend}`, { WAIT_BUDGET_SECONDS: '1' }, { durable: backend });
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await app?.stop();
    });

    test('two concurrent calls with one key and other arguments: exactly one workflow, the other call gets the key-reused error', async () => {
        const before = await instanceCount();
        for (let pair = 0; pair < PAIRS; pair++) {
            const key = `race-${pair}`;
            const [first, second] = [await connect(), await connect()];
            const argsA = { difficulty: 4, blocks: 1, idempotency_key: key };
            const argsB = { difficulty: 5, blocks: 2, idempotency_key: key };
            const results = await Promise.all([startMining(first, argsA), startMining(second, argsB)]);

            const winners = results.flatMap((result, i) => (result.isError ? [] : [{ result, args: i === 0 ? argsA : argsB }]));
            const losers = results.filter((result) => result.isError === true);
            const summary = results.map((r) => (r.isError ? 'tool error' : (r.structuredContent as { workflow_id?: unknown }).workflow_id));
            assert.equal(winners.length, 1, `pair ${pair}: ${JSON.stringify(summary)}`);
            assert.equal(losers.length, 1, `pair ${pair}`);
            assert.match(JSON.stringify(losers[0]?.content), /idempotency_key was already used with other arguments/);

            // The workflow handed out runs the winner's arguments.
            const winner = winners[0] as (typeof winners)[number];
            const id = String((winner.result.structuredContent as { workflow_id: unknown }).workflow_id);
            const stored = (await instance(id)).input as { difficulty: number; blocks: number };
            assert.deepEqual({ difficulty: stored.difficulty, blocks: stored.blocks }, { difficulty: winner.args.difficulty, blocks: winner.args.blocks });
        }
        assert.equal(await instanceCount(), before + PAIRS, 'one orchestration per key');
    });
});
