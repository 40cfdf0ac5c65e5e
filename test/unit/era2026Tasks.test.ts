import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, type Config } from '../../src/config';
import { TASK_TTL_MS } from '../../src/mcp/era2026/server';
import { keyedWorkflowId } from '../../src/workflow/ids';
import type { DurableStatusLike } from '../../src/workflow/durableStatus';
import { principalTenant, type Tenant } from '../../src/workflow/tenant';
import { answerOf, envelope2026, raw2026Request, type JsonRpcAnswer } from '@mcp-mining/testkit';
import { endpointFor } from './helpers/endpoint';
import { FakeClock, MemoryLog, RESULT } from './helpers/fakes';
import { MemoryBackend } from './helpers/memoryBackend';

/**
 * The 2026-07-28 server and its Tasks extension over a backend in memory, through the same HTTP seam the
 * function uses (web Request in, Response out), with raw 2026 requests: what tasks/get, tasks/cancel and
 * tasks/update answer for each state of a workflow, and who gets a task at all.
 */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12', WAIT_BUDGET_SECONDS: '1' });
const ALICE = principalTenant('aad', 'alice');
const BOB = principalTenant('aad', 'bob');
const URL_ = new URL('http://localhost/api/mcp');

/** The endpoint (both eras) for one caller of `backend`. */
function endpoint(backend: MemoryBackend, tenant: Tenant) {
    return endpointFor(CONFIG, { client: backend, log: new MemoryLog(), clock: new FakeClock(), tenant, wallNow: () => backend.now });
}

async function ask(
    backend: MemoryBackend,
    method: string,
    params: Record<string, unknown>,
    { tenant = ALICE, declare = true }: { tenant?: Tenant; declare?: boolean } = {}
): Promise<JsonRpcAnswer> {
    const request = raw2026Request(URL_, { method, params: { ...params, _meta: envelope2026(declare) } });
    const response = await endpoint(backend, tenant)(request);
    return (await answerOf(response, method)).answer;
}

function resultOf(answer: JsonRpcAnswer): Record<string, unknown> {
    assert.equal(answer.kind, 'result', JSON.stringify(answer));
    return answer.kind === 'result' ? answer.result : {};
}

function errorCodeOf(answer: JsonRpcAnswer): number | undefined {
    return answer.kind === 'error' ? answer.error.code : undefined;
}

/** A running instance that has published its progress. */
const seed = (backend: MemoryBackend, id: string, change: Partial<DurableStatusLike> = {}): string =>
    backend.seed(id, { customStatus: { blocks_done: 1, blocks_total: 4 }, ...change });

describe('the Tasks extension (2026-07-28) over the durable backend', () => {
    it('start_mining answers a declaring client with the flat task, whose workflow exists before the answer, ttl in its input', async () => {
        const backend = new MemoryBackend();
        const task = resultOf(await ask(backend, 'tools/call', { name: 'start_mining', arguments: { difficulty: 4, blocks: 2 } }));
        assert.equal(task.resultType, 'task');
        assert.equal(task.status, 'working');
        assert.equal(task.ttlMs, TASK_TTL_MS);
        assert.equal(task.pollIntervalMs, CONFIG.pollAfterSeconds * 1000);
        const id = task.taskId as string;
        assert.ok(id.startsWith(`${ALICE.tag}-`));
        const stored = backend.instances.get(id);
        assert.ok(stored, 'the workflow is in the backend');
        assert.equal((stored.input as { task_ttl_ms?: number }).task_ttl_ms, TASK_TTL_MS);
        // The tool's own answer rides along for clients that read content (the SDK holds it to the outputSchema).
        assert.equal((task.structuredContent as { workflow_id?: string }).workflow_id, id);
    });

    it('a client that does not declare the extension gets the plain call, and -32021 on tasks/get, tasks/cancel and tasks/update', async () => {
        const backend = new MemoryBackend();
        const plain = resultOf(await ask(backend, 'tools/call', { name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } }, { declare: false }));
        assert.notEqual(plain.resultType, 'task');
        const id = (plain.structuredContent as { workflow_id: string }).workflow_id;
        for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
            const answer = await ask(backend, method, { taskId: id, inputResponses: {} }, { declare: false });
            assert.equal(errorCodeOf(answer), -32021, method);
            const data = answer.kind === 'error' ? (answer.error.data as { requiredCapabilities?: unknown }) : undefined;
            assert.deepEqual(data?.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } });
        }
    });

    it('tasks/get: working with the progress message; completed with the result inlined; a failed workflow is completed with isError; an ended-from-outside one cancelled', async () => {
        const backend = new MemoryBackend();
        const working = resultOf(await ask(backend, 'tasks/get', { taskId: seed(backend, `${ALICE.tag}-w`) }));
        assert.equal(working.resultType, 'complete');
        assert.equal(working.status, 'working');
        assert.equal(working.statusMessage, 'Mined block 1 of 4');
        assert.equal(working.ttlMs, null, 'no ttl was asked for');

        const done = resultOf(await ask(backend, 'tasks/get', { taskId: seed(backend, `${ALICE.tag}-c`, { runtimeStatus: 'Completed', output: RESULT }) }));
        assert.equal(done.status, 'completed');
        const result = done.result as { resultType?: string; isError?: boolean; structuredContent?: { status: string }; content: Array<{ type: string }> };
        assert.equal(result.resultType, 'complete');
        assert.equal(result.isError, false);
        assert.equal(result.structuredContent?.status, 'completed');
        assert.ok(result.content.some((c) => c.type === 'resource_link'));

        const failed = resultOf(await ask(backend, 'tasks/get', { taskId: seed(backend, `${ALICE.tag}-f`, { runtimeStatus: 'Failed', output: 'boom' }) }));
        assert.equal(failed.status, 'completed');
        assert.equal((failed.result as { isError?: boolean }).isError, true);

        const ended = resultOf(await ask(backend, 'tasks/get', { taskId: seed(backend, `${ALICE.tag}-t`, { runtimeStatus: 'Terminated', output: 'x' }) }));
        assert.equal(ended.status, 'cancelled');
        assert.equal(ended.result, undefined);
    });

    it("unknown, another tenant's and expired tasks are all -32602 on tasks/get, tasks/cancel and tasks/update", async () => {
        const backend = new MemoryBackend();
        const alices = seed(backend, `${ALICE.tag}-mine`);
        const expired = seed(backend, `${ALICE.tag}-old`, {
            input: { difficulty: 12, blocks: 4, task_ttl_ms: 1000 },
            createdTime: new Date(backend.now - 2000),
        });
        for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
            assert.equal(errorCodeOf(await ask(backend, method, { taskId: `${ALICE.tag}-nope` })), -32602, `${method} unknown`);
            assert.equal(errorCodeOf(await ask(backend, method, { taskId: alices }, { tenant: BOB })), -32602, `${method} other tenant`);
            assert.equal(errorCodeOf(await ask(backend, method, { taskId: expired })), -32602, `${method} expired`);
        }
        backend.applyQueuedTerminates();
        assert.equal(backend.instances.get(alices)?.runtimeStatus, 'Running', "Bob's cancel did not touch Alice's workflow");
    });

    it('tasks/cancel acknowledges and ends the workflow as cancel_mining does; tasks/update acknowledges and changes nothing', async () => {
        const backend = new MemoryBackend();
        const id = seed(backend, `${ALICE.tag}-run`);
        const update = resultOf(await ask(backend, 'tasks/update', { taskId: id, inputResponses: {} }));
        assert.equal(update.resultType, 'complete');
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Running');
        resultOf(await ask(backend, 'tasks/cancel', { taskId: id }));
        backend.applyQueuedTerminates();
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Terminated');
        assert.equal(resultOf(await ask(backend, 'tasks/get', { taskId: id })).status, 'cancelled');
    });

    it("an error before the task exists is the tool's own message (a reused idempotency key), not a task", async () => {
        const backend = new MemoryBackend();
        seed(backend, keyedWorkflowId(ALICE, 'k1'), { input: { difficulty: 3, blocks: 1 } });
        const answer = resultOf(await ask(backend, 'tools/call', { name: 'start_mining', arguments: { difficulty: 4, blocks: 1, idempotency_key: 'k1' } }));
        assert.notEqual(answer.resultType, 'task');
        assert.equal(answer.isError, true);
        assert.match((answer.content as Array<{ text: string }>)[0]?.text ?? '', /idempotency_key was already used with other arguments/);
    });

    it('server/discover advertises the extension; a 2025 initialize through the same endpoint does not', async () => {
        const backend = new MemoryBackend();
        const serve = endpoint(backend, ALICE);
        const discover = raw2026Request(URL_, { method: 'server/discover', params: { _meta: envelope2026(false) } });
        const found = resultOf((await answerOf(await serve(discover))).answer);
        const capabilities = found.capabilities as { extensions?: unknown; tools?: { listChanged?: boolean } };
        assert.deepEqual(capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
        assert.notEqual(capabilities.tools?.listChanged, true);

        const initialize = new Request(URL_, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'initialize',
                params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
            }),
        });
        const init = resultOf((await answerOf(await serve(initialize))).answer);
        assert.equal(init.protocolVersion, '2025-11-25');
        assert.equal((init.capabilities as { extensions?: unknown }).extensions, undefined);
    });
});
