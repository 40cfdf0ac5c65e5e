import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FAULT_PATH } from '@mcp-mining/devhost';
import { type AppOnAzurite, CHAIN_22, describeOnEachBackend, invocationHolds, pollUntilDone, quickRedelivery, startAppOnAzurite } from '@mcp-mining/testkit';

/**
 * A range that fails while other ranges of its block are in flight (the worker exits under it, as on Azure) is
 * retried by the range window and the run ends with the sequential chain. With callActivityWithRetry inside the
 * window, one such failure failed the orchestration on the real extension with "Non-Deterministic workflow
 * detected: … scheduled a timer task with sequence number 82" (src/jobs/rangeWindow.ts says why).
 */

interface Status {
    status: string;
    workflow_id: string;
    error?: string;
    result?: { blocks: Array<{ index: number; nonce: number; hash: string }> };
}

describeOnEachBackend('a range failing with others in flight', (backend) => {
    let app: AppOnAzurite;
    let client: Client;

    before(async () => {
        app = await startAppOnAzurite(
            `rfault${backend}`,
            { WAIT_BUDGET_SECONDS: '0', PARALLEL_RANGES: '8', RANGE_SIZE: '65536', ...quickRedelivery(backend) },
            { durable: backend }
        );
        client = new Client({ name: 'range-faults', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await app?.stop();
    });

    const call = async (name: string, args: Record<string, unknown>): Promise<Status> =>
        ((await client.callTool({ name, arguments: args })) as CallToolResult).structuredContent as unknown as Status;

    test('is retried, and the run completes with the sequential chain', async () => {
        // Held ranges wait in flight, so "others in flight" is a state the test waits for (devhost/worker/holds.ts).
        const holds = invocationHolds(app.host.url);
        await holds.hold('MineBlock');
        try {
            const started = await call('start_mining', { difficulty: 22, blocks: 1 });
            assert.equal(started.status, 'running');
            // Block 0's first range goes alone; once it is done, the window opens.
            await holds.waitForHeld('MineBlock', 1);
            await holds.release('MineBlock');
            await holds.waitForHeld('MineBlock', 2);
            const res = await fetch(new URL(FAULT_PATH, app.host.url), {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ fault: 'worker-exit', function: 'MineBlock' }),
            });
            assert.equal(res.status, 200, 'the oldest held range failed, with another still in flight');
            await res.text();
            await holds.stop('MineBlock');
            const done = await pollUntilDone((id) => call('get_mining_result', { workflow_id: id }), started.workflow_id);
            assert.equal(done.status, 'completed', JSON.stringify(done));
            assert.deepEqual(done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })), CHAIN_22.slice(0, 1));
        } finally {
            await holds.stop('MineBlock');
        }
    });
});
