import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseConfig } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { LIST_PAGE_SIZE } from '../../src/mcp/era2025/taskStore';
import { LIST_MAX_PAGES } from '../../src/workflow/workflowService';
import type { InstancePage, InstanceQuery } from '../../src/workflow/workflowClient';
import { principalTenant } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { MemoryBackend } from './helpers/memoryBackend';
import { connectInMemory } from './helpers/inMemoryClient';

/** tasks/list reads only the caller's instances, by id prefix, and stops paging at its bounds. */

const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests' });
const ALICE = principalTenant('aad', 'alice');
const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(backend: MemoryBackend) {
    const server = buildMcpServer({ client: backend, config: CONFIG, log: new MemoryLog(), clock: new FakeClock(), tenant: ALICE, wallNow: () => backend.now });
    return (await connectInMemory(server, clients)).client.experimental.tasks;
}

describe('tasks/list by the caller\'s id prefix', () => {
    it('asks the backend for the caller\'s prefix only, a page at most the page size', async () => {
        const backend = new MemoryBackend();
        for (let i = 0; i < 5000; i++) {
            const id = `p${String(i).padStart(20, '0')}-x`;
            backend.instances.set(id, { instanceId: id, runtimeStatus: 'Completed', createdTime: new Date(backend.now), lastUpdatedTime: new Date(backend.now) });
        }
        const mine = `${ALICE.tag}-t1`;
        backend.instances.set(mine, { instanceId: mine, runtimeStatus: 'Running', input: { difficulty: 1, blocks: 1 }, createdTime: new Date(backend.now), lastUpdatedTime: new Date(backend.now) });
        const tasks = await connect(backend);
        const listed = await tasks.listTasks();
        assert.deepEqual(listed.tasks.map((t) => t.taskId), [mine]);
        assert.equal(listed.nextCursor, undefined);
        const queries = backend.calls.filter((c) => c.method === 'listInstances').map((c) => c.args[0] as InstanceQuery);
        assert.equal(queries.length, 1);
        assert.equal(queries[0]?.instanceIdPrefix, `${ALICE.tag}-`);
        assert.ok((queries[0]?.top ?? 0) <= LIST_PAGE_SIZE);
    });

    it(`stops after ${LIST_MAX_PAGES} pages and answers with a cursor that goes on from there`, async () => {
        const backend = new MemoryBackend();
        let pages = 0;
        // A backend whose pages are all empty (Azure Storage may answer so while it scans): paging must stop.
        backend.listInstances = async (query: InstanceQuery): Promise<InstancePage> => {
            pages++;
            return { instances: [], continuationToken: `t${Number((query.continuationToken ?? 't0').slice(1)) + 1}` };
        };
        const tasks = await connect(backend);
        const first = await tasks.listTasks();
        assert.equal(pages, LIST_MAX_PAGES);
        assert.deepEqual(first.tasks, []);
        assert.ok(first.nextCursor);
        await tasks.listTasks(first.nextCursor);
        assert.equal(pages, 2 * LIST_MAX_PAGES);
    });

    it('aborts a page still in flight when the call gives up, so nothing pages on in the background', async () => {
        const backend = new MemoryBackend();
        let aborted = false;
        backend.listInstances = (_query: InstanceQuery, signal?: AbortSignal) =>
            new Promise<InstancePage>((_resolve, reject) => {
                signal?.addEventListener('abort', () => {
                    aborted = true;
                    reject(new Error('aborted'));
                });
                // Never answers by itself; the store's time limit ends it.
            });
        const tasks = await connect(backend);
        const started = Date.now();
        await assert.rejects(tasks.listTasks(), /did not answer/);
        assert.ok(aborted, 'the page in flight was aborted');
        assert.ok(Date.now() - started < 15_000);
    });
});
