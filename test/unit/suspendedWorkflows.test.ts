import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { clientOnBackend } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';

/**
 * A workflow an operator suspended (Durable's suspend) is still unfinished: cancel_mining, tasks/cancel and
 * an expired ttl must end it like a running one. The backend in memory terminates a suspended instance and
 * refuses to purge one, as the extension does.
 */

const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

const connect = (backend: MemoryBackend) => clientOnBackend(backend, CONFIG, clients);

async function suspendedTask(backend: MemoryBackend, client: Client, ttl?: number): Promise<string> {
    const { task } = await client.request(
        { method: 'tools/call', params: { name: 'start_mining', arguments: { blocks: 4 }, task: ttl === undefined ? {} : { ttl } } },
        CreateTaskResultSchema
    );
    backend.set(task.taskId, { runtimeStatus: 'Suspended' });
    return task.taskId;
}

describe('a suspended workflow', () => {
    it('cancel_mining ends it: failed with reason cancelled', async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = await suspendedTask(backend, client);
        const answer = (await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: id } })) as CallToolResult;
        const status = answer.structuredContent as { status: string; reason?: string };
        assert.deepEqual([status.status, status.reason], ['failed', 'cancelled']);
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Terminated');
    });

    it('tasks/cancel ends it: the task is cancelled', async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = await suspendedTask(backend, client);
        assert.equal((await client.experimental.tasks.getTask(id)).status, 'working');
        assert.equal((await client.experimental.tasks.cancelTask(id)).status, 'cancelled');
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Terminated');
    });

    it("past its ttl it is unknown to every read, which writes nothing, and the tenant's next start ends it", async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = await suspendedTask(backend, client, 10_000);
        backend.now += 10_000;
        const notFound = (error: unknown) => error instanceof McpError && /Task not found/.test(error.message);
        const writes = () => backend.calls.filter((c) => c.method === 'terminate' || c.method === 'purgeInstanceHistory').map((c) => c.method);
        await assert.rejects(client.experimental.tasks.getTask(id), notFound);
        assert.deepEqual(writes(), []);
        await client.callTool({ name: 'start_mining', arguments: { difficulty: 1, blocks: 1 } });
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Terminated');
        assert.deepEqual(writes(), ['terminate']);
        await assert.rejects(client.experimental.tasks.getTask(id), notFound);
    });
});
