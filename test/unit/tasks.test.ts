import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { SECOND_LOOK_MS } from '../../src/workflow/startOrFind';
import { cancelReason, type DurableStatusLike } from '../../src/workflow/durableStatus';

const CANCEL_REASON = cancelReason('cancel_mining');
import { principalTenant, SHARED_TENANT, type Tenant } from '../../src/workflow/tenant';
import { committed, FakeClock, MemoryLog, RESULT, workflowStarts } from './helpers/fakes';
import { MemoryBackend } from './helpers/memoryBackend';
import { connectInMemory } from './helpers/inMemoryClient';

/** MCP Tasks over the durable client: the SDK's client against a fresh server, with a backend in memory. */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });
const ALICE = principalTenant('aad', 'alice');
const BOB = principalTenant('aad', 'bob');

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(backend: MemoryBackend, tenant: Tenant = SHARED_TENANT, config: Config = CONFIG) {
    const clock = new FakeClock();
    const server = buildMcpServer({ client: backend, config, log: new MemoryLog(), clock, tenant, wallNow: () => backend.now });
    const { client } = await connectInMemory(server, clients);
    const startTask = (args: Record<string, unknown>, ttl?: number) =>
        client.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: args, task: ttl === undefined ? {} : { ttl } } },
            CreateTaskResultSchema
        );
    return { client, clock, tasks: client.experimental.tasks, startTask };
}

/** An instance of `tenant` as the backend would hold it. */
const seed = (backend: MemoryBackend, id: string, change: Partial<DurableStatusLike> = {}): string => backend.seed(id, change);

async function rejectsWith(promise: Promise<unknown>, code: number, message: RegExp): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, code);
        assert.match(error.message, message);
        return true;
    });
}

describe('MCP Tasks: capabilities', () => {
    it('declares tasks for tools/call and cancel, and tasks/list only to a caller that can be told apart', async () => {
        const shared = await connect(new MemoryBackend());
        assert.deepEqual(shared.client.getServerCapabilities()?.tasks, { cancel: {}, requests: { tools: { call: {} } } });
        const alice = await connect(new MemoryBackend(), ALICE);
        assert.deepEqual(alice.client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
        // Undeclared, but the SDK routes it anyway: refused.
        await rejectsWith(shared.tasks.listTasks(), -32602, /tasks\/list is offered only to callers the server can tell apart/);
    });
});

describe('MCP Tasks: a task-augmented start_mining', () => {
    it('starts the workflow and answers at once with the task, whose id is the workflow id', async () => {
        const backend = new MemoryBackend();
        const { startTask, clock } = await connect(backend);
        const { task } = await startTask({ blocks: 4 }, 60_000);
        const started = backend.calls.find((c) => c.method === 'startNew');
        const [name, options] = started?.args as [string, { instanceId: string; input: unknown }];
        assert.equal(name, 'MineChain');
        assert.deepEqual(options.input, { difficulty: 12, blocks: 4, range_size: 2 ** 23, parallel_ranges: 4, work_limit: 16 * 4 * 2 ** 12, time_limit_seconds: 7200, task_ttl_ms: 60_000 });
        assert.match(task.taskId, /^shared-/);
        assert.deepEqual(task, {
            taskId: options.instanceId,
            status: 'working',
            ttl: 60_000,
            createdAt: new Date(backend.now).toISOString(),
            lastUpdatedAt: new Date(backend.now).toISOString(),
            pollInterval: 5000,
            statusMessage: 'Mining block 1 of 4',
        });
        // No budgeted wait on this path: only the cap's two looks at the running workflows (workCaps.ts).
        assert.equal(clock.time, SECOND_LOOK_MS);
    });

    it('runs to completion with callToolStream: created, polled, and the result with the resource link', async () => {
        const backend = new MemoryBackend();
        const start = backend.startNew.bind(backend);
        backend.startNew = async (name, options) => {
            const id = await start(name, options);
            backend.set(id, { runtimeStatus: 'Completed', output: RESULT, customStatus: { blocks_done: 1, blocks_total: 1 } });
            return id;
        };
        const { tasks } = await connect(backend);
        const kinds: string[] = [];
        let result: CallToolResult | undefined;
        for await (const message of tasks.callToolStream({ name: 'start_mining', arguments: { difficulty: 8, blocks: 1 } })) {
            kinds.push(message.type);
            if (message.type === 'result') result = message.result as CallToolResult;
            if (message.type === 'error') assert.fail(message.error.message);
        }
        assert.deepEqual(kinds, ['taskCreated', 'taskStatus', 'result']);
        assert.ok(result);
        const id = (result.structuredContent as { workflow_id: string }).workflow_id;
        assert.deepEqual(result.structuredContent, { status: 'completed', workflow_id: id, result: RESULT, ...committed(2 ** 8) });
        assert.equal(result.isError, false);
        assert.deepEqual(result.content[1], {
            type: 'resource_link',
            uri: `mining://workflows/${id}`,
            name: `mining-workflow-${id}`,
            title: 'Mining workflow status',
            description: 'The status of this workflow as JSON, with the whole result when completed (never truncated).',
            mimeType: 'application/json',
        });
    });

    it("leaves a plain call its budgeted wait: running after WAIT_BUDGET_SECONDS, not the SDK's polling until the end", async () => {
        const backend = new MemoryBackend();
        const { client, clock } = await connect(backend);
        const plain = (await client.callTool({ name: 'start_mining', arguments: { blocks: 4 } })) as CallToolResult;
        assert.equal((plain.structuredContent as { status: string }).status, 'running');
        assert.equal(clock.time, CONFIG.waitBudgetSeconds * 1000);
        // Invalid arguments are still the SDK's tool error on this path.
        const invalid = (await client.callTool({ name: 'start_mining', arguments: { blocks: 0 } })) as CallToolResult;
        assert.equal(invalid.isError, true);
        assert.match(JSON.stringify(invalid.content), /blocks must be an integer from 1 to 16/);
    });

    it('dedupes with an idempotency_key like a plain call: the task id is the keyed workflow id', async () => {
        const backend = new MemoryBackend();
        const { client, startTask } = await connect(backend);
        const plain = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 5, blocks: 2, idempotency_key: 'job-1' } })) as CallToolResult;
        const workflowId = (plain.structuredContent as { workflow_id: string }).workflow_id;
        const first = await startTask({ difficulty: 5, blocks: 2, idempotency_key: 'job-1' });
        const again = await startTask({ difficulty: 5, blocks: 2, idempotency_key: 'job-1' });
        assert.equal(first.task.taskId, workflowId);
        assert.equal(again.task.taskId, workflowId);
        assert.equal(workflowStarts(backend), 1);
        // Other arguments with the same key: refused with the tool's own message, said once, and nothing started.
        await rejectsWith(startTask({ difficulty: 6, blocks: 2, idempotency_key: 'job-1' }), -32602, /^MCP error -32602: This idempotency_key was already used/);
        assert.equal(workflowStarts(backend), 1);
    });
});

describe('MCP Tasks: tasks/get and tasks/result from the Durable status', () => {
    it('maps every Durable status: working with progress, completed, failed as completed with isError, terminated as cancelled', async () => {
        const backend = new MemoryBackend();
        const { tasks } = await connect(backend);
        const created = new Date(backend.now - 60_000);
        const updated = new Date(backend.now - 1_000);
        const times = { createdTime: created, lastUpdatedTime: updated };
        const running = seed(backend, 'shared-run', { ...times, customStatus: { blocks_done: 2, blocks_total: 4 } });
        const done = seed(backend, 'shared-done', { ...times, runtimeStatus: 'Completed', output: RESULT });
        const broken = seed(backend, 'shared-failed', { ...times, runtimeStatus: 'Failed', output: "Orchestrator function 'MineChain' failed: difficulty must be at most 64" });
        const cancelled = seed(backend, 'shared-cancelled', { ...times, runtimeStatus: 'Terminated', output: CANCEL_REASON });
        const stopped = seed(backend, 'shared-stopped', { ...times, runtimeStatus: 'Terminated', output: 'operator' });
        const suspended = seed(backend, 'shared-suspended', { ...times, runtimeStatus: 'Suspended' });

        const task = await tasks.getTask(running);
        assert.deepEqual(
            { ...task },
            {
                taskId: running,
                status: 'working',
                ttl: null,
                createdAt: created.toISOString(),
                lastUpdatedAt: updated.toISOString(),
                pollInterval: 5000,
                statusMessage: 'Mined block 2 of 4',
            }
        );
        assert.equal((await tasks.getTask(suspended)).status, 'working');
        const summary = async (id: string) => {
            const t = await tasks.getTask(id);
            return [t.status, t.statusMessage];
        };
        assert.deepEqual(await summary(done), ['completed', 'Mined all 1 blocks']);
        assert.deepEqual(await summary(broken), ['completed', 'difficulty must be at most 64']);
        assert.deepEqual(await summary(cancelled), ['cancelled', 'The workflow was cancelled before it finished.']);
        assert.deepEqual(await summary(stopped), ['cancelled', 'The workflow was terminated before it finished.']);

        const ok = (await tasks.getTaskResult(done, CallToolResultSchema)) as CallToolResult;
        assert.equal(ok.isError, false);
        assert.deepEqual(ok.structuredContent, { status: 'completed', workflow_id: done, result: RESULT, expected_attempts: 4 * 2 ** 12 });
        assert.deepEqual(ok._meta, { 'io.modelcontextprotocol/related-task': { taskId: done } });
        // A failed workflow is a failed tool call: the same status object, flagged isError.
        const failed = (await tasks.getTaskResult(broken, CallToolResultSchema)) as CallToolResult;
        assert.equal(failed.isError, true);
        assert.deepEqual(
            { status: (failed.structuredContent as { status: string }).status, reason: (failed.structuredContent as { reason: string }).reason },
            { status: 'failed', reason: 'error' }
        );
    });

    it("answers an unknown, malformed or another tenant's task as not found, without a backend call for the latter two", async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const bob = await connect(backend, BOB);
        const { task } = await alice.startTask({ blocks: 2 });
        assert.equal((await alice.tasks.getTask(task.taskId)).status, 'working');
        const before = backend.calls.length;
        for (const id of [task.taskId, '../../admin', 'x'.repeat(101)]) {
            await rejectsWith(bob.tasks.getTask(id), -32602, /Task not found/);
            await rejectsWith(bob.tasks.getTaskResult(id, CallToolResultSchema), -32602, /Task not found/);
            await rejectsWith(bob.tasks.cancelTask(id), -32602, /Task not found/);
        }
        assert.equal(backend.calls.length, before);
        await rejectsWith(bob.tasks.getTask(`${BOB.tag}-unknown`), -32602, /Task not found/);
        assert.equal(backend.instances.get(task.taskId)?.runtimeStatus, 'Running');
    });
});

describe('MCP Tasks: tasks/result', () => {
    it('waits for the end within the wait budget, and then says to poll instead of holding the request open', async () => {
        const backend = new MemoryBackend();
        const { tasks, startTask, clock } = await connect(backend);
        const { task } = await startTask({ blocks: 4 });
        await rejectsWith(tasks.getTaskResult(task.taskId, CallToolResultSchema), -32600, /still working after 20 s\. Poll tasks\/get/);
        assert.equal(clock.time, SECOND_LOOK_MS + CONFIG.waitBudgetSeconds * 1000);

        // Ends while tasks/result waits: answered as soon as it is seen.
        const read = backend.getStatus.bind(backend);
        let reads = 0;
        backend.getStatus = async (id) => {
            if (++reads === 3) backend.set(id, { runtimeStatus: 'Completed', output: RESULT });
            return read(id);
        };
        const waitedFrom = clock.time;
        const result = (await tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
        assert.ok(clock.time - waitedFrom < 1000);
        assert.equal((result.structuredContent as { status: string }).status, 'completed');
        assert.deepEqual(result._meta, { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    });
});

describe('MCP Tasks: tasks/cancel', () => {
    it('ends the workflow as cancel_mining does and answers cancelled; an ended task cannot be cancelled again', async () => {
        const backend = new MemoryBackend();
        const { tasks, startTask, client } = await connect(backend);
        const { task } = await startTask({ blocks: 4 });
        const cancelled = await tasks.cancelTask(task.taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.deepEqual(backend.calls.find((c) => c.method === 'terminate')?.args, [task.taskId, CANCEL_REASON]);
        const status = (await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: task.taskId } })) as CallToolResult;
        assert.deepEqual(
            [(status.structuredContent as { status: string }).status, (status.structuredContent as { reason: string }).reason],
            ['failed', 'cancelled']
        );
        await rejectsWith(tasks.cancelTask(task.taskId), -32602, /Cannot cancel task in terminal status: cancelled/);
    });
});

describe('MCP Tasks: ttl', () => {
    it('keeps a task within its ttl; past it the workflow is unknown to every method, and no read ends or purges it', async () => {
        const backend = new MemoryBackend();
        const { tasks, startTask, client } = await connect(backend);
        const { task } = await startTask({ blocks: 4 }, 10_000);
        backend.now += 9_999;
        assert.equal((await tasks.getTask(task.taskId)).ttl, 10_000);
        backend.now += 1;
        await rejectsWith(tasks.getTask(task.taskId), -32602, /Task not found/);
        const status = (await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: task.taskId } })) as CallToolResult;
        assert.equal((status.structuredContent as { status: string }).status, 'not_found');
        const writes = backend.calls.filter((c) => c.method === 'terminate' || c.method === 'purgeInstanceHistory');
        assert.deepEqual(writes, []);
    });

    it('leaves a task without ttl alone however old it is', async () => {
        const backend = new MemoryBackend();
        const { tasks } = await connect(backend);
        const id = seed(backend, 'shared-old', { createdTime: new Date(0) });
        assert.equal((await tasks.getTask(id)).ttl, null);
    });

    it('refuses a ttl of zero or less before anything starts', async () => {
        const backend = new MemoryBackend();
        const { startTask } = await connect(backend);
        for (const ttl of [0, -1]) await assert.rejects(startTask({ difficulty: 1, blocks: 1 }, ttl));
        assert.equal(backend.instances.size, 0);
    });
});

describe('MCP Tasks: tasks/list', () => {
    it("lists only the caller's unexpired tasks, in the backend's order, in pages with a cursor", async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const base = backend.now - 3_600_000;
        const mine: string[] = [];
        for (let i = 0; i < 60; i++) mine.push(seed(backend, `${ALICE.tag}-t${String(i).padStart(2, '0')}`, { createdTime: new Date(base + i * 1000) }));
        seed(backend, `${BOB.tag}-t00`);
        seed(backend, 'shared-t00');
        seed(backend, `${ALICE.tag}-expired`, { input: { difficulty: 1, blocks: 1, task_ttl_ms: 1000 }, createdTime: new Date(base) });

        const first = await alice.tasks.listTasks();
        assert.equal(first.tasks.length, 50);
        assert.ok(first.nextCursor);
        const second = await alice.tasks.listTasks(first.nextCursor);
        assert.equal(second.nextCursor, undefined);
        const listed = [...first.tasks, ...second.tasks].map((t) => t.taskId);
        assert.deepEqual(listed, mine);
        await rejectsWith(alice.tasks.listTasks('not-a-cursor'), -32602, /Invalid cursor/);
    });
});
