import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { principalTenant } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { MemoryBackend } from './helpers/memoryBackend';
import { connectInMemory } from './helpers/inMemoryClient';

/** The registry of jobs (src/jobs/index.ts) as the 2025-era server serves it, over a backend in memory. */

const ALICE = principalTenant('aad', 'alice');
const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(backend: MemoryBackend, enabledJobs?: string) {
    const config = parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', ...(enabledJobs === undefined ? {} : { ENABLED_JOBS: enabledJobs }) });
    const server = buildMcpServer({ client: backend, config, log: new MemoryLog(), clock: new FakeClock(), tenant: ALICE, wallNow: () => backend.now });
    return connectInMemory(server, clients);
}

const structured = (result: unknown) => (result as CallToolResult).structuredContent as { status: string; workflow_id: string; error?: string };

describe('the job registry', () => {
    it('serves mining alone by default: the three tools a model has always seen, and its instructions', async () => {
        const { client, tools } = await connect(new MemoryBackend());
        assert.deepEqual(tools.map((t) => t.name), ['start_mining', 'get_mining_result', 'cancel_mining']);
        assert.match(client.getInstructions() ?? '', /^Mining runs as a durable background workflow\. Call start_mining;/);
        assert.doesNotMatch(client.getInstructions() ?? '', /prime/);
    });

    it('ENABLED_JOBS=count_primes serves its three tools alone, with its own schemas', async () => {
        const { tools } = await connect(new MemoryBackend(), 'count_primes');
        assert.deepEqual(tools.map((t) => t.name), ['start_prime_count', 'get_prime_count_result', 'cancel_prime_count']);
        const start = tools.find((t) => t.name === 'start_prime_count');
        assert.deepEqual(start?.inputSchema.required, ['below']);
        assert.deepEqual(Object.keys(start?.outputSchema?.properties ?? {}).sort(), ['error', 'next', 'poll_after_seconds', 'progress', 'reason', 'result', 'status', 'time_limit_seconds', 'workflow_id']);
    });

    it("one job's workflow is not_found to another job's tools and resource, and their cancel leaves it running", async () => {
        const backend = new MemoryBackend();
        const { client } = await connect(backend, 'mining,count_primes');
        const mining = structured(await client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } }));
        const primes = structured(await client.callTool({ name: 'start_prime_count', arguments: { below: 1000 } }));
        assert.deepEqual([mining.status, primes.status], ['running', 'running']);
        for (const [tool, id, error] of [
            ['get_prime_count_result', mining.workflow_id, 'No prime count workflow has this id.'],
            ['cancel_prime_count', mining.workflow_id, 'No prime count workflow has this id.'],
            ['get_mining_result', primes.workflow_id, 'No mining workflow has this id.'],
            ['cancel_mining', primes.workflow_id, 'No mining workflow has this id.'],
        ] as const) {
            const status = structured(await client.callTool({ name: tool, arguments: { workflow_id: id } }));
            assert.deepEqual([status.status, status.error], ['not_found', error], tool);
        }
        assert.equal(backend.count('terminate'), 0);
        await assert.rejects(client.readResource({ uri: `primes://workflows/${mining.workflow_id}` }), /not found/);
        const read = await client.readResource({ uri: `primes://workflows/${primes.workflow_id}` });
        assert.equal((JSON.parse((read.contents[0] as { text: string }).text) as { status: string }).status, 'running');
    });

    it('tasks show each workflow through its own job; a workflow of a job not served is no task', async () => {
        const backend = new MemoryBackend();
        const { client } = await connect(backend, 'mining,count_primes');
        const { task } = await client.request(
            { method: 'tools/call', params: { name: 'start_prime_count', arguments: { below: 2 * 10 ** 7 }, task: {} } },
            CreateTaskResultSchema
        );
        assert.equal(task.statusMessage, 'Counted 0 of 4 segments');
        backend.set(task.taskId, { runtimeStatus: 'Completed', output: { below: 2 * 10 ** 7, count: 1_270_607, segments: 4, elapsed_ms: 10 } });
        const mined = structured(await client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 2 } }));
        const listed = (await client.experimental.tasks.listTasks()).tasks;
        assert.deepEqual(
            Object.fromEntries(listed.map((t) => [t.taskId, t.statusMessage])),
            { [task.taskId]: 'Counted 1270607 primes below 20000000', [mined.workflow_id]: 'Mining block 1 of 2' }
        );
        // Served mining alone, the prime count is unknown as a task.
        const { client: miningOnly } = await connect(backend);
        assert.deepEqual((await miningOnly.experimental.tasks.listTasks()).tasks.map((t) => t.taskId), [mined.workflow_id]);
        await assert.rejects(miningOnly.experimental.tasks.getTask(task.taskId), /Task not found/);
    });
});
