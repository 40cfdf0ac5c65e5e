import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHAIN_12, describeOnEachBackend, type Mined, pollUntilDone, quickRedelivery, repoRoot, resultProblems, type SpawnedHost, spawnHost, startTestAzurite, type TestAzurite, uniqueHubName } from '@mcp-mining/testkit';

/**
 * Ranges in flight end to end (issue 21): the MCP SDK's client over HTTP against the app on the local host,
 * restarted on one task hub with PARALLEL_RANGES 1, 2 and 8. Every run must give the known chain, nonce for
 * nonce, and total_attempts = Σ(nonce + 1) (attempts of the answer, not hashes computed). RANGE_SIZE 2^10 (the
 * least the app accepts) makes the blocks of CHAIN_12 span 15, 4, 5 and 2 ranges, so the window really slides
 * (block 0 past 8 ranges, blocks 0 to 2 past 2) and ranges above a hit really are left running, for a few
 * thousand hashes a block: what costs is the ranges, not the hashing.
 */

const RANGE_SIZE = 2 ** 10;

interface Status {
    status: string;
    workflow_id: string;
    result?: Mined;
    error?: string;
}

describeOnEachBackend('ranges in flight: the known chain with PARALLEL_RANGES 1, 2 and 8', (backend) => {
    let azurite: TestAzurite;
    let host: SpawnedHost | undefined;
    const hub = uniqueHubName(`fan${backend}`);

    before(async () => {
        azurite = await startTestAzurite(backend === 'extension' ? 'all' : 'table');
    });
    after(async () => {
        await host?.stop();
        await azurite?.stop();
    });

    for (const parallel of [1, 2, 8]) {
        test(`PARALLEL_RANGES ${parallel}: CHAIN_12 exactly, total_attempts the sum of nonce + 1`, async () => {
            await host?.stop();
            host = await spawnHost({
                app: repoRoot,
                storage: 'azure',
                durable: backend,
                env: {
                    AzureWebJobsStorage: azurite.connectionString,
                    TASKHUB_NAME: hub,
                    WAIT_BUDGET_SECONDS: '1',
                    PARALLEL_RANGES: String(parallel),
                    RANGE_SIZE: String(RANGE_SIZE),
                    ...quickRedelivery(backend),
                },
            });
            const client = new Client({ name: 'e2e-ranges', version: '1.0.0' });
            await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
            try {
                const call = async (name: string, args: Record<string, unknown>): Promise<Status> => {
                    const answer = (await client.callTool({ name, arguments: args })) as CallToolResult;
                    assert.notEqual(answer.isError, true, JSON.stringify(answer.content));
                    return answer.structuredContent as unknown as Status;
                };
                const started = await call('start_mining', { difficulty: 12, blocks: 4 });
                const done = await pollUntilDone((id) => call('get_mining_result', { workflow_id: id }), started.workflow_id);
                assert.equal(done.status, 'completed', done.error);
                const result = done.result as Mined;
                assert.deepEqual(
                    result.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })),
                    CHAIN_12.map(({ index, nonce, hash }) => ({ index, nonce, hash }))
                );
                assert.equal(result.total_attempts, CHAIN_12.reduce((sum, block) => sum + block.nonce + 1, 0));
                assert.deepEqual(resultProblems(result, 12, 4), []);
            } finally {
                await client.close().catch(() => undefined);
            }
        });
    }
});
