import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Client111 } from 'mcp-sdk-1-11/client/index.js';
import { StreamableHTTPClientTransport as Transport111 } from 'mcp-sdk-1-11/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { invocationHolds, type Mined, pollUntilDone, repoRoot, resultProblems, type SpawnedHost, spawnHost, uniqueHubName } from '@mcp-mining/testkit';

/**
 * The 2025 era as clients other than SDK 1.32's see it: SDK 1.11 (protocol 2025-03-26, which knows no
 * resource_link and sends no MCP-Protocol-Version header) over HTTP against the app on the local host, and
 * raw JSON-RPC for what each protocol version gets: resource_link from 2025-06-18 on only, readable errors
 * before a task exists, no listChanged, an unknown tool as a JSON-RPC error, each message said once.
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: Mined;
}

interface RpcAnswer {
    result?: { content?: Array<{ type: string; uri?: string }>; structuredContent?: Status; isError?: boolean; task?: { taskId: string } } & Record<string, unknown>;
    error?: { code: number; message: string };
}

describe('older and other 2025-era clients against the app on the local host', () => {
    let host: SpawnedHost;
    let mcpUrl: URL;
    const clients: Array<{ close(): Promise<void> }> = [];

    before(async () => {
        // Memory storage: this file is about what each client version gets, not the Durable backend.
        host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('older'), WAIT_BUDGET_SECONDS: '20' } });
        mcpUrl = new URL(`${host.url}/api/mcp`);
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await host?.stop();
    });

    /** One JSON-RPC request over HTTP, as a stateless client without initialize sends it; the answer from JSON or SSE. */
    async function rpc(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RpcAnswer> {
        const response = await fetch(mcpUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        assert.equal(response.status, 200, `${method}: HTTP ${response.status}`);
        const text = await response.text();
        if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
            const answers = text
                .split('\n')
                .filter((line) => line.startsWith('data: '))
                .map((line) => JSON.parse(line.slice('data: '.length)) as RpcAnswer & { id?: unknown })
                .filter((message) => message.id === 1);
            assert.equal(answers.length, 1, text);
            return answers[0] as RpcAnswer;
        }
        return JSON.parse(text) as RpcAnswer;
    }

    const versioned = (version: string | undefined): Record<string, string> => (version === undefined ? {} : { 'mcp-protocol-version': version });

    function linkTypes(answer: RpcAnswer): string[] {
        assert.equal(answer.error, undefined, JSON.stringify(answer.error));
        return (answer.result?.content ?? []).map((item) => item.type);
    }

    test('an SDK 1.11 client (2025-03-26) lists the tools, mines inline and past its budget, polls, and reads the resource', async () => {
        const client = new Client111({ name: 'sdk-1.11', version: '1.0.0' });
        clients.push(client);
        await client.connect(new Transport111(mcpUrl));
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['cancel_mining', 'get_mining_result', 'start_mining']);
        // It declared no MCP Apps: no tool names a view (test/e2e/views.test.ts has the client that does).
        assert.deepEqual(tools.filter((t) => '_meta' in t), []);

        // 1.11's CallToolResultSchema has no resource_link: a result with one would be rejected as a whole.
        const inline = await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 2 } });
        const done = inline.structuredContent as unknown as Status;
        assert.equal(done.status, 'completed', JSON.stringify(inline));
        assert.deepEqual(resultProblems(done.result, 8, 2), []);
        assert.deepEqual((inline.content as Array<{ type: string }>).map((c) => c.type), ['text']);

        // Its ranges held in flight (devhost/worker/holds.ts), the call outlasts the budget on any machine.
        const first = await invocationHolds(host.url).holding('MineBlock', () =>
            client.callTool({ name: 'start_mining', arguments: { difficulty: 20, blocks: 3 } })
        );
        const running = first.structuredContent as unknown as Status;
        assert.equal(running.status, 'running', JSON.stringify(first));
        assert.deepEqual((first.content as Array<{ type: string }>).map((c) => c.type), ['text']);
        const polled = await pollUntilDone(async (workflowId) => {
            const answer = await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: workflowId } });
            return answer.structuredContent as unknown as Status;
        }, running.workflow_id);
        assert.equal(polled.status, 'completed');
        assert.deepEqual(resultProblems(polled.result, 20, 3), []);

        const read = await client.readResource({ uri: `mining://workflows/${running.workflow_id}` });
        const content = read.contents[0] as { text?: string } | undefined;
        assert.equal((JSON.parse(content?.text ?? '{}') as Status).status, 'completed');
    });

    test('resource_link only for protocol versions that have it: none without the header or at 2025-03-26', async () => {
        for (const [version, expected] of [
            [undefined, ['text']],
            ['2025-03-26', ['text']],
            ['2025-06-18', ['text', 'resource_link']],
            ['2025-11-25', ['text', 'resource_link']],
        ] as const) {
            const started = await rpc('tools/call', { name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } }, versioned(version));
            assert.deepEqual(linkTypes(started), expected, `start_mining at ${version ?? 'no header'}`);
            const workflowId = started.result?.structuredContent?.workflow_id ?? '';
            const read = await rpc('tools/call', { name: 'get_mining_result', arguments: { workflow_id: workflowId } }, versioned(version));
            assert.deepEqual(linkTypes(read), expected, `get_mining_result at ${version ?? 'no header'}`);
        }
    });

    test('initialize advertises no listChanged, which a stateless server could never send', async () => {
        const answer = await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
        const capabilities = answer.result?.capabilities as { tools?: Record<string, unknown>; resources?: Record<string, unknown> };
        assert.deepEqual(capabilities.tools, {});
        assert.deepEqual(capabilities.resources, {});
        // Nor MCP Apps, to a client that did not declare it.
        assert.equal((capabilities as { extensions?: unknown }).extensions, undefined);
    });

    test('errors before a task exists are JSON-RPC errors with the tool’s own message, said once', async () => {
        const v = versioned('2025-11-25');
        const errorOf = async (params: Record<string, unknown>) => {
            const answer = await rpc('tools/call', params, v);
            assert.ok(answer.error, `no error: ${JSON.stringify(answer.result)}`);
            assert.doesNotMatch(answer.error.message, /MCP error|Invalid task creation result/);
            return answer.error;
        };
        const invalid = await errorOf({ name: 'start_mining', arguments: { difficulty: 999, blocks: 1 }, task: {} });
        assert.equal(invalid.code, -32602);
        assert.match(invalid.message, /difficulty must be an integer from 0 to \d+/);

        const ttl = await errorOf({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 }, task: { ttl: 0 } });
        assert.equal(ttl.code, -32602);
        assert.match(ttl.message, /task\.ttl must be a positive number/);

        const key = `older-${Date.now()}`;
        const task = await rpc('tools/call', { name: 'start_mining', arguments: { difficulty: 4, blocks: 1, idempotency_key: key }, task: {} }, v);
        assert.ok(task.result?.task?.taskId, JSON.stringify(task));
        const reused = await errorOf({ name: 'start_mining', arguments: { difficulty: 5, blocks: 1, idempotency_key: key }, task: {} });
        assert.equal(reused.code, -32602);
        assert.match(reused.message, /idempotency_key was already used with other arguments/);

        const noTasks = await errorOf({ name: 'get_mining_result', arguments: { workflow_id: 'x' }, task: {} });
        assert.equal(noTasks.code, -32601);
        assert.match(noTasks.message, /get_mining_result does not support tasks/);

        // An error from the SDK's own handlers is said once too.
        const unknownTask = await rpc('tasks/get', { taskId: 'shared-no-such-task' }, v);
        assert.equal(unknownTask.error?.code, -32602);
        assert.doesNotMatch(unknownTask.error?.message ?? '', /MCP error/);
        assert.match(unknownTask.error?.message ?? '', /not found/i);
    });

    test('an unknown tool is a JSON-RPC error -32602, and the current SDK client shows its prefix once', async () => {
        const raw = await rpc('tools/call', { name: 'no_such_tool', arguments: {} }, versioned('2025-11-25'));
        assert.deepEqual(raw.error, { code: -32602, message: 'Tool no_such_tool not found' });

        const client = new Client({ name: 'sdk-1.32', version: '1.0.0' });
        clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(mcpUrl));
        await assert.rejects(
            client.callTool({ name: 'no_such_tool', arguments: {} }),
            (error: unknown) => error instanceof McpError && error.code === -32602 && error.message === 'MCP error -32602: Tool no_such_tool not found'
        );
        // The SDK 1.32 tasks client sees a refused task creation as an error with the tool's message.
        await client.listTools();
        const stream = client.experimental.tasks.callToolStream({ name: 'start_mining', arguments: { difficulty: 999, blocks: 1 } });
        const messages: string[] = [];
        for await (const message of stream) messages.push(message.type === 'error' ? message.error.message : message.type);
        assert.equal(messages.length, 1, messages.join(' | '));
        assert.match(messages[0] ?? '', /^MCP error -32602: difficulty must be/);
    });
});
