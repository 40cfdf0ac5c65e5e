import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FAULT_PATH } from '@mcp-mining/devhost';
import { type AppOnAzurite, CHAIN_22, describeOnEachBackend, pollUntilDone, quickRedelivery, startAppOnAzurite } from '@mcp-mining/testkit';

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
        const started = await call('start_mining', { difficulty: 22, blocks: CHAIN_22.length });
        assert.equal(started.status, 'running');
        // Block 0's first range goes alone; from the third MineBlock on, the window is open.
        const executions = () => app.host.stderr.split('\n').filter((line) => line.includes('MineBlock')).length;
        let injected = 0;
        for (let tries = 0; injected < 2 && tries < 400; tries++) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            if (executions() < 3) continue;
            const res = await fetch(new URL(FAULT_PATH, app.host.url), {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ fault: 'worker-exit', function: 'MineBlock' }),
            });
            // 200: an in-flight invocation failed; 202 would arm the next one, which is as good.
            if (res.status === 200 || res.status === 202) injected++;
            await res.text();
            await new Promise((resolve) => setTimeout(resolve, 400));
        }
        assert.ok(injected > 0, 'no fault was injected');
        const done = await pollUntilDone((id) => call('get_mining_result', { workflow_id: id }), started.workflow_id);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })), CHAIN_22);
    });
});
