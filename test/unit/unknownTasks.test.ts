import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { HTTP_RESPONSE_LIMIT_SECONDS, parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { principalTenant } from '../../src/workflow/tenant';
import { answerOf, envelope2026, raw2026Request } from '@mcp-mining/testkit';
import { endpointFor } from './helpers/endpoint';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';

/**
 * A task id that names no task of the caller's (unknown, malformed, or another tenant's real one) is not found at
 * once, in both eras, however long the wait budget: there is nothing to wait for. "At once" is read off a fake clock
 * that moves only when the code sleeps (it must not have), and off the backend's reads (one for a well-formed id of
 * the caller's own, none for the rest).
 */

// The longest budget the settings allow, so a lookup that waited for it could not go unseen.
const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12', WAIT_BUDGET_SECONDS: String(HTTP_RESPONSE_LIMIT_SECONDS - 5) });
const ALICE = principalTenant('aad', 'alice');
const BOB = principalTenant('aad', 'bob');

/** Bob's view of a backend where Alice has a running task: the ids he may try, and how many reads each may cost. */
function scene() {
    const backend = new MemoryBackend();
    const alices = backend.seed(`${ALICE.tag}-run`, { customStatus: { blocks_done: 1, blocks_total: 4 } });
    const ids = [
        { what: 'unknown', id: `${BOB.tag}-nope`, reads: 1 },
        { what: 'malformed', id: '../../admin', reads: 0 },
        { what: 'malformed, reaching for Alice', id: `${BOB.tag}-x/../${alices}`, reads: 0 },
        { what: "another tenant's", id: alices, reads: 0 },
    ];
    return { backend, alices, ids };
}

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

describe('tasks of no one the caller knows: not found at once, whatever the wait budget', () => {
    it('2025-11-25: tasks/get and tasks/result answer -32602 Task not found, without sleeping, one read at most', async () => {
        const { backend, alices, ids } = scene();
        const clock = new FakeClock();
        const server = buildMcpServer({ client: backend, config: CONFIG, log: new MemoryLog(), clock, tenant: BOB, wallNow: () => backend.now });
        const tasks = (await connectInMemory(server, clients)).client.experimental.tasks;
        for (const { what, id, reads } of ids) {
            for (const [method, ask] of [
                ['tasks/get', () => tasks.getTask(id)],
                ['tasks/result', () => tasks.getTaskResult(id, CallToolResultSchema)],
            ] as const) {
                const before = backend.count('getStatus');
                await assert.rejects(ask(), (error: unknown) => {
                    assert.ok(error instanceof McpError, `${method}, ${what}: ${String(error)}`);
                    assert.equal(error.code, -32602, `${method}, ${what}`);
                    assert.match(error.message, /Task not found/, `${method}, ${what}`);
                    return true;
                }, `${method}, ${what}`);
                assert.equal(backend.count('getStatus') - before, reads, `${method}, ${what}: backend reads`);
                assert.deepEqual([clock.time, clock.sleeps], [0, []], `${method}, ${what}: no wait`);
            }
        }
        assert.equal(backend.instances.get(alices)?.runtimeStatus, 'Running');
    });

    it('2026-07-28: tasks/get answers -32602, and tasks/result (not in the revision) -32601, without sleeping or reading more', async () => {
        const { backend, alices, ids } = scene();
        const clock = new FakeClock();
        const serve = endpointFor(CONFIG, { client: backend, log: new MemoryLog(), clock, tenant: BOB, wallNow: () => backend.now });
        const ask = async (method: string, taskId: string) => {
            const request = raw2026Request(new URL('http://localhost/api/mcp'), { method, params: { taskId, _meta: envelope2026(true) } });
            return (await answerOf(await serve(request), method)).answer;
        };
        for (const { what, id, reads } of ids) {
            for (const [method, code, expectedReads] of [
                ['tasks/get', -32602, reads],
                ['tasks/result', -32601, 0],
            ] as const) {
                const before = backend.count('getStatus');
                const answer = await ask(method, id);
                assert.equal(answer.kind === 'error' ? answer.error.code : JSON.stringify(answer), code, `${method}, ${what}`);
                if (code === -32602) assert.match(answer.kind === 'error' ? answer.error.message : '', /Task not found/, `${method}, ${what}`);
                assert.equal(backend.count('getStatus') - before, expectedReads, `${method}, ${what}: backend reads`);
                assert.deepEqual([clock.time, clock.sleeps], [0, []], `${method}, ${what}: no wait`);
            }
        }
        assert.equal(backend.instances.get(alices)?.runtimeStatus, 'Running');
    });
});
