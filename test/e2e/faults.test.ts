import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AppOnAzurite, CHAIN_22, describeOnEachBackend, invocationHolds, type Mined, pollUntilDone as poll, quickRedelivery, startAppOnAzurite } from '@mcp-mining/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Faults under a running workflow, end to end: the storage (Azurite) goes away mid-run and comes back on
 * the same port with the same data. The host must ride out the outage (retrying its commits, losing
 * nothing) and the run must end with exactly the chain computed independently beforehand.
 */

/** A warning or error of the extension's storage provider or core, as the host relays its log. */
const OUTAGE_SEEN_BY_EXTENSION = /\b(warning|error) +\[DurableTask\.(AzureStorage|Core)\]/;

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: Mined;
}

describeOnEachBackend('faults: a storage outage in the middle of a run', (backend) => {
    let app: AppOnAzurite;
    let client: Client;

    before(async () => {
        // No inline wait: start_mining answers at once, so the outage begins at the start of the run.
        app = await startAppOnAzurite(`faults${backend}`, { WAIT_BUDGET_SECONDS: '0', ...quickRedelivery(backend) }, { durable: backend });
        client = new Client({ name: 'faults', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await app?.stop();
    });

    async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
    }

    /** Polls until the run ends; a tool error (the backend briefly unreachable) is an answer to retry, not a result. */
    const pollUntilDone = (id: string) =>
        poll(async (workflowId): Promise<Status> => {
            const result = await call('get_mining_result', { workflow_id: workflowId });
            return result.isError === true ? { status: 'running', workflow_id: workflowId } : (result.structuredContent as unknown as Status);
        }, id);

    test('Azurite stopped and restarted mid-run: the run completes with the right chain', async () => {
        // The run's first ranges are held in flight (devhost/worker/holds.ts), so the outage comes mid-run on any
        // machine, and they are let go while storage is down: their results must be stored through the outage.
        const holds = invocationHolds(app.host.url);
        await holds.hold('MineBlock');
        const started = (await call('start_mining', { difficulty: 22, blocks: 2 })).structuredContent as unknown as Status;
        assert.equal(started.status, 'running');
        await holds.waitForHeld('MineBlock', 1);
        await app.azurite.restart(async () => {
            await holds.stop('MineBlock');
            // Down until the backend has met the outage (the TypeScript engine: the held ranges' results failed to
            // commit; the real extension: a storage call that failed), so the test proves something.
            await app.host.waitForOutput(backend === 'ts' ? /failed; retrying/ : OUTAGE_SEEN_BY_EXTENSION, 120_000);
        });
        const done = await pollUntilDone(started.workflow_id).catch((error: unknown) => {
            const problems = app.host.stderr.split('\n').filter((line) => /\b(warning|error|critical) /.test(line));
            throw new Error(`${String(error)}\n${problems.slice(-15).join('\n')}`);
        });
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(
            done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })),
            CHAIN_22.slice(0, 2)
        );
        // Not terminated by a storage error, and the host is still serving.
        assert.doesNotMatch(app.host.stderr, /cannot be stored|Giving up on instance|Stopping Durable Functions/);
    });
});
