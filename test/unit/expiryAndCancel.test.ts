import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { CANCEL_NOT_VISIBLE } from '../../src/mcp/era2025/taskStore';
import { TTL_EXPIRED_REASON } from '../../src/workflow/expiry';
import { CANCEL_WAIT_MS } from '../../src/workflow/workflowService';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';

/**
 * Task expiry and cancellation against a backend whose terminate is only a queued message, as on the real
 * Durable extension (it applies it when it next polls the instance's control queue).
 */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

function depsFor(backend: MemoryBackend, clock = new FakeClock()) {
    return { client: backend, config: CONFIG, log: new MemoryLog(), clock, tenant: SHARED_TENANT, wallNow: () => backend.now };
}

async function connect(backend: MemoryBackend) {
    const deps = depsFor(backend);
    const { client } = await connectInMemory(buildMcpServer(deps), clients);
    const startTask = async (ttl: number) =>
        (
            await client.request(
                { method: 'tools/call', params: { name: 'start_mining', arguments: { blocks: 4 }, task: { ttl } } },
                CreateTaskResultSchema
            )
        ).task;
    return { client, clock: deps.clock, startTask };
}

const writes = (backend: MemoryBackend) =>
    backend.calls.filter((c) => c.method === 'terminate' || c.method === 'purgeInstanceHistory').map((c) => c.method);

describe('task expiry', () => {
    it('an expired workflow reads as unknown everywhere, and no read writes anything', async () => {
        const backend = new MemoryBackend();
        const { client, startTask } = await connect(backend);
        const task = await startTask(1_000);
        backend.set(task.taskId, { runtimeStatus: 'Running' });
        const other = await startTask(1_000);
        backend.set(other.taskId, { runtimeStatus: 'Completed' });
        backend.now += 1_000;
        for (const id of [task.taskId, other.taskId]) {
            const result = (await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: id } })) as CallToolResult;
            assert.equal((result.structuredContent as { status: string }).status, 'not_found');
            await assert.rejects(client.experimental.tasks.getTask(id), /not found/i);
            await assert.rejects(client.readResource({ uri: `mining://workflows/${id}` }), /not found/i);
        }
        assert.deepEqual(writes(backend), []);
        assert.equal(backend.instances.get(task.taskId)?.runtimeStatus, 'Running');
    });

    it("the tenant's next start ends an expired workflow that still runs, and does not count it against the cap", async () => {
        const backend = new MemoryBackend();
        const { client, startTask } = await connect(backend);
        const expired = await startTask(1_000);
        backend.now += 1_000;
        const fresh = await startTask(60_000);
        assert.notEqual(fresh.taskId, expired.taskId);
        const terminates = backend.calls.filter((c) => c.method === 'terminate');
        assert.deepEqual(terminates.map((c) => c.args[0]), [expired.taskId]);
        assert.equal(terminates[0]?.args[1], TTL_EXPIRED_REASON);
        assert.deepEqual(backend.purgedWhileRunning, []);
        void client;
    });
});

/** host.json's extensions.durableTask.storageProvider.maxQueuePollingInterval, in ms. */
function maxQueuePollingIntervalMs(): number {
    const hostJson = JSON.parse(readFileSync('host.json', 'utf8')) as {
        extensions: { durableTask: { storageProvider: { maxQueuePollingInterval: string } } };
    };
    const [h, m, s] = hostJson.extensions.durableTask.storageProvider.maxQueuePollingInterval.split(':').map(Number);
    return (((h ?? 0) * 60 + (m ?? 0)) * 60 + (s ?? 0)) * 1000;
}

/** Applies queued terminates once `lagMs` of the fake clock have passed since the first terminate. */
function applyTerminatesAfter(backend: MemoryBackend, clock: FakeClock, lagMs: number): void {
    const terminate = backend.terminate.bind(backend);
    let since: number | undefined;
    backend.terminate = async (id, reason) => {
        since ??= clock.now();
        await terminate(id, reason);
    };
    const getStatus = backend.getStatus.bind(backend);
    backend.getStatus = async (id) => {
        if (since !== undefined && clock.now() - since >= lagMs) backend.applyQueuedTerminates();
        return getStatus(id);
    };
}

describe('cancellation on a backend that applies a terminate when it next polls its queue', () => {
    // The real extension's worst idle poll, a whole episode, and a loaded 2-core machine.
    const realisticLagMs = 2 * maxQueuePollingIntervalMs() + 2_000;

    it('waits long enough for such a terminate', () => {
        assert.ok(CANCEL_WAIT_MS > realisticLagMs, `CANCEL_WAIT_MS ${CANCEL_WAIT_MS} <= ${realisticLagMs}`);
    });

    it('cancel_mining answers failed/cancelled when the end shows after that lag', async () => {
        const backend = new MemoryBackend();
        backend.queueTerminates = true;
        const { client, clock, startTask } = await connect(backend);
        const task = await startTask(60_000);
        applyTerminatesAfter(backend, clock, realisticLagMs);
        const result = (await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: task.taskId } })) as CallToolResult;
        assert.deepEqual(
            { status: (result.structuredContent as { status: string }).status, reason: (result.structuredContent as { reason: string }).reason },
            { status: 'failed', reason: 'cancelled' }
        );
    });

    it('cancel_mining says so honestly when the end is not visible within its wait', async () => {
        const backend = new MemoryBackend();
        backend.queueTerminates = true;
        const { client, clock, startTask } = await connect(backend);
        const task = await startTask(60_000);
        const before = clock.now();
        const result = (await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: task.taskId } })) as CallToolResult;
        const status = result.structuredContent as { status: string; next: string };
        assert.equal(status.status, 'running');
        assert.match(status.next, /Cancellation was requested but has not taken effect yet/);
        assert.match(status.next, /get_mining_result/);
        assert.ok(clock.now() - before <= CANCEL_WAIT_MS);
    });

    it('tasks/cancel waits for the end the same way, and says so when it is not visible yet', async () => {
        const backend = new MemoryBackend();
        backend.queueTerminates = true;
        const { client, clock, startTask } = await connect(backend);
        const slow = await startTask(60_000);
        const pending = await client.experimental.tasks.cancelTask(slow.taskId);
        assert.equal(pending.status, 'working');
        assert.equal(pending.statusMessage, CANCEL_NOT_VISIBLE);

        const late = await startTask(60_000);
        applyTerminatesAfter(backend, clock, realisticLagMs);
        const cancelled = await client.experimental.tasks.cancelTask(late.taskId);
        assert.equal(cancelled.status, 'cancelled');
    });
});
