import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AppOnAzurite, describeOnEachBackend, envelope2026, invocationHolds, type JsonRpcAnswer, type Mined, postRaw2026, rawRequest, repoRoot, resultProblems, type SpawnedHost, spawnHost, startAppOnAzurite, uniqueHubName, until } from '@mcp-mining/testkit';

/**
 * Promises of docs/contract.md and docs/security.md that no other test held (a bug planted in each left the
 * suite green): an Origin that differs from an allowed one only in its port, WAIT_BUDGET_SECONDS=0,
 * expected_attempts on the task paths of both eras, and a 2026 client that declares another extension than
 * the Tasks one. Each against the app on the local host, through its MCP endpoint.
 */

interface Status {
    status: string;
    workflow_id: string;
    poll_after_seconds?: number;
    expected_attempts?: number;
    max_attempts?: number;
    time_limit_seconds?: number;
    result?: Mined;
    progress?: { blocks_done: number; blocks_total: number };
}

const structured = (result: unknown) => (result as { structuredContent?: Status }).structuredContent as Status;
const errorCode = (answer: JsonRpcAnswer) => (answer.kind === 'error' ? answer.error.code : undefined);
const resultOf = (answer: JsonRpcAnswer) => (answer.kind === 'result' ? answer.result : assert.fail(`a JSON-RPC error: ${JSON.stringify(answer)}`));

/** `_meta` of a 2026 request whose client declares one extension, not the Tasks one. */
function envelopeWithOtherExtension(): Record<string, unknown> {
    return { ...envelope2026(false), 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'com.example/telemetry': {} } } };
}

describe('Origin: a port is part of the origin (docs/security.md)', () => {
    let host: SpawnedHost;

    before(async () => {
        // As in Azure: the server's own host is not a loopback name, so only its own origin and ALLOWED_ORIGINS pass.
        host = await spawnHost({
            app: repoRoot,
            env: { TASKHUB_NAME: uniqueHubName('originport'), WEBSITE_HOSTNAME: 'mining-app.example', ALLOWED_ORIGINS: 'https://tools.example:8443' },
        });
    });
    after(async () => {
        await host?.stop();
    });

    test('an Origin that differs from the server\'s own or an allowed one only in its port is refused with 403', async () => {
        const send = (origin: string) =>
            rawRequest(`${host.url}/api/mcp`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'mining-app.example', origin },
                chunks: [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })],
            });
        assert.equal((await send('https://tools.example:8443')).status, 200, 'the allowed origin');
        assert.equal((await send('https://mining-app.example')).status, 200, 'the server\'s own origin');
        for (const origin of ['https://tools.example', 'https://tools.example:9443', 'http://tools.example:8443', 'https://mining-app.example:8443']) {
            const refused = await send(origin);
            assert.equal(refused.status, 403, origin);
            assert.match((JSON.parse(refused.body.toString('utf8')) as { error: { message: string } }).error.message, /Origin/, origin);
        }
    });
});

describe('task paths and 2026 clients (docs/contract.md, docs/client-authors.md)', () => {
    let host: SpawnedHost;
    let mcpUrl: URL;
    const clients: Client[] = [];

    before(async () => {
        // Memory storage and the TypeScript engine: these are about the protocol, not the Durable backend.
        host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('promises'), WAIT_BUDGET_SECONDS: '20', POLL_AFTER_SECONDS: '1' } });
        mcpUrl = new URL(`${host.url}/api/mcp`);
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await host?.stop();
    });

    test('2025-11-25 task: the CreateTaskResult and tasks/result both carry expected_attempts (blocks × 2^difficulty)', async () => {
        const client = new Client({ name: 'held-promises', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl));
        clients.push(client);
        const [difficulty, blocks] = [12, 3];
        const created = await client.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: { difficulty, blocks }, task: { ttl: 600_000 } } },
            CreateTaskResultSchema
        );
        assert.equal(created._meta?.['expected_attempts'], blocks * 2 ** difficulty, JSON.stringify(created));
        const taskId = created.task.taskId;
        await until(async () => (await client.experimental.tasks.getTask(taskId)).status === 'completed', 'the task completes', 60_000, 100);
        const result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
        const status = structured(result);
        assert.equal(status.status, 'completed');
        assert.equal(status.expected_attempts, blocks * 2 ** difficulty);
        assert.deepEqual(resultProblems(status.result, difficulty, blocks), []);
    });

    test('2026 Tasks extension: the task answer and the completed tasks/get both carry expected_attempts', async () => {
        const [difficulty, blocks] = [12, 2];
        const created = resultOf(
            (
                await postRaw2026(mcpUrl, {
                    method: 'tools/call',
                    params: { name: 'start_mining', arguments: { difficulty, blocks }, _meta: envelope2026(true) },
                })
            ).answer
        );
        assert.equal(created['resultType'], 'task', JSON.stringify(created));
        assert.equal((created['_meta'] as Record<string, unknown> | undefined)?.['expected_attempts'], blocks * 2 ** difficulty);
        assert.equal(structured(created).expected_attempts, blocks * 2 ** difficulty);
        const taskId = String(created['taskId']);
        let task: Record<string, unknown> = {};
        await until(
            async () => {
                task = resultOf((await postRaw2026(mcpUrl, { method: 'tasks/get', params: { taskId, _meta: envelope2026(true) } })).answer);
                return task['status'] === 'completed';
            },
            'the 2026 task completes',
            60_000,
            100
        );
        const inlined = task['result'] as { structuredContent?: Status } | undefined;
        assert.equal(inlined?.structuredContent?.expected_attempts, blocks * 2 ** difficulty, JSON.stringify(task));
        assert.deepEqual(resultProblems(inlined?.structuredContent?.result, difficulty, blocks), []);
    });

    test('cancel_mining on a finished workflow keeps its status; get_mining_result and cancel_mining answers carry no expected_attempts nor the bounds', async () => {
        const client = new Client({ name: 'held-promises-cancel', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl));
        clients.push(client);
        const done = structured(await client.callTool({ name: 'start_mining', arguments: { difficulty: 6, blocks: 2 } }));
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.equal(done.expected_attempts, 2 * 2 ** 6);
        assert.equal(done.max_attempts, 16 * 2 * 2 ** 6);
        assert.equal(done.time_limit_seconds, 7200);
        // What the start committed to is said once, at the start.
        const finished: Status = { ...done };
        delete finished.expected_attempts;
        delete finished.max_attempts;
        delete finished.time_limit_seconds;
        const read = structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: done.workflow_id } }));
        assert.deepEqual(read, finished, 'get_mining_result: the status, without the cost');
        const cancelled = structured(await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: done.workflow_id } }));
        assert.deepEqual(cancelled, finished, 'cancel_mining of a finished workflow: its status unchanged, without the cost');
        assert.deepEqual(structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: done.workflow_id } })), finished);
    });

    test('a running answer gives POLL_AFTER_SECONDS (here 1) as poll_after_seconds, from start_mining and get_mining_result alike', async () => {
        const client = new Client({ name: 'held-promises-poll', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl));
        clients.push(client);
        // Its ranges held in flight (devhost/worker/holds.ts): still running after the budget and the read after it.
        await invocationHolds(host.url).holding('MineBlock', async () => {
            const first = structured(await client.callTool({ name: 'start_mining', arguments: { difficulty: 30, blocks: 1 } }));
            assert.equal(first.status, 'running', JSON.stringify(first));
            assert.equal(first.poll_after_seconds, 1);
            const polled = structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: first.workflow_id } }));
            assert.equal(polled.status, 'running');
            assert.equal(polled.poll_after_seconds, 1);
            await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: first.workflow_id } });
        });
    });

    test('a request body nested 64 levels deep is served; 65 is refused with 400 (docs/security.md)', async () => {
        // tools/list with its _meta holding arrays: the message, params and _meta are 3 levels, then `arrays` more.
        const list = (arrays: number) =>
            rawRequest(mcpUrl.href, {
                method: 'POST',
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
                chunks: [`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":${'['.repeat(arrays)}${']'.repeat(arrays)}}}}`],
            });
        const served = await list(61);
        assert.equal(served.status, 200, served.body.toString('utf8').slice(0, 300));
        assert.match(served.body.toString('utf8'), /start_mining/);
        const refused = await list(62);
        assert.equal(refused.status, 400, refused.body.toString('utf8').slice(0, 300));
        assert.equal((JSON.parse(refused.body.toString('utf8')) as { jsonrpc: string }).jsonrpc, '2.0');
    });

    test('a 2026 client that declares another extension than Tasks gets the plain budgeted call, and -32021 on tasks/*', async () => {
        const call = resultOf(
            (
                await postRaw2026(mcpUrl, {
                    method: 'tools/call',
                    params: { name: 'start_mining', arguments: { difficulty: 4, blocks: 1 }, _meta: envelopeWithOtherExtension() },
                })
            ).answer
        );
        assert.notEqual(call['resultType'], 'task', JSON.stringify(call));
        const status = structured(call);
        assert.equal(status.status, 'completed');
        assert.deepEqual(resultProblems(status.result, 4, 1), []);
        for (const method of ['tasks/get', 'tasks/cancel']) {
            const answer = (await postRaw2026(mcpUrl, { method, params: { taskId: status.workflow_id, _meta: envelopeWithOtherExtension() } })).answer;
            assert.equal(errorCode(answer), -32021, `${method}: ${JSON.stringify(answer)}`);
        }
    });
});

describeOnEachBackend('WAIT_BUDGET_SECONDS=0 (docs/contract.md)', (backend) => {
    let app: AppOnAzurite;
    let client: Client;

    before(async () => {
        app = await startAppOnAzurite(`budget0${backend}`, { WAIT_BUDGET_SECONDS: '0' }, { durable: backend });
        client = new Client({ name: 'budget-zero', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await app?.stop();
    });

    test('start_mining answers at once with the handle, running, and the workflow goes on', async () => {
        // Held (devhost/worker/holds.ts), the run cannot end, so only a wait could have made this call slow.
        const holds = invocationHolds(app.host.url);
        await holds.hold('MineBlock');
        const started = performance.now();
        const first = structured(await client.callTool({ name: 'start_mining', arguments: { difficulty: 30, blocks: 1 } }));
        const ms = performance.now() - started;
        assert.equal(first.status, 'running', JSON.stringify(first));
        assert.match(first.workflow_id, /\S/);
        assert.equal(first.poll_after_seconds, 5);
        assert.equal(first.expected_attempts, 2 ** 30);
        // Well below the default 20 s budget: no wait at all, only the start and the cap's looks (seconds on a loaded machine).
        assert.ok(ms < 15_000, `start_mining took ${ms.toFixed(0)} ms with WAIT_BUDGET_SECONDS=0`);
        const polled = structured(await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: first.workflow_id } }));
        assert.equal(polled.status, 'running');
        await client.callTool({ name: 'cancel_mining', arguments: { workflow_id: first.workflow_id } });
        await holds.stop('MineBlock');
    });
});
