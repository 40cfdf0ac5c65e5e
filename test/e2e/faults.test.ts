import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHAIN_25 } from '../support/expectedChains';
import { repoRoot, spawnHost, type SpawnedHost } from '../support/spawnHost';
import { startTestAzurite, uniqueHubName, type TestAzurite } from '../support/testAzurite';

/**
 * Faults under a running workflow, end to end: the storage (Azurite) goes away mid-run and comes back on
 * the same port with the same data. The host must ride out the outage (retrying its commits, losing
 * nothing) and the run must end with exactly the chain computed independently beforehand.
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: { difficulty: number; blocks: { index: number; previous_hash: string; nonce: number; hash: string }[] };
}

describe('faults: a storage outage in the middle of a run', () => {
    let azurite: TestAzurite;
    let host: SpawnedHost;
    let client: Client;

    before(async () => {
        azurite = await startTestAzurite();
        host = await spawnHost({
            app: repoRoot,
            storage: 'azure',
            // No inline wait: start_mining answers at once, so the outage begins at the start of the run.
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName('faults'), WAIT_BUDGET_SECONDS: '0' },
        });
        client = new Client({ name: 'faults', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await host?.stop();
        await azurite?.stop();
    });

    async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
    }

    /** Polls until the run ends; a tool error (the backend briefly unreachable) is an answer to retry, not a result. */
    async function pollUntilDone(id: string, timeoutMs = 120_000): Promise<Status> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const result = await call('get_mining_result', { workflow_id: id });
            if (result.isError !== true) {
                const status = result.structuredContent as unknown as Status;
                if (status.status !== 'running') return status;
            }
            assert.ok(Date.now() < deadline, `${id} still running`);
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
    }

    test('Azurite stopped and restarted mid-run: the run completes with the right chain', async () => {
        const started = (await call('start_mining', { difficulty: 25, blocks: 4 })).structuredContent as unknown as Status;
        assert.equal(started.status, 'running');
        await azurite.restart(async () => {
            // Down until the engine has met the outage (a commit that failed), so the test proves something.
            await host.waitForOutput(/failed; retrying/, 60_000);
        });
        const done = await pollUntilDone(started.workflow_id);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(
            done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })),
            CHAIN_25
        );
        // Not terminated by a storage error, and the host is still serving.
        assert.doesNotMatch(host.stderr, /cannot be stored|Giving up on instance|Stopping Durable Functions/);
    });
});
