import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer as McpServer1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { CallToolResultSchema, ListToolsRequestSchema, McpError, type Task } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema as CallToolResultSchema111 } from 'mcp-sdk-1-11/types.js';
import { createMcpHandler, McpServer as McpServer2 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { argumentsSchema } from '../../src/mcp/sdk/standardSchema';
import { answerOf, envelope2026, raw2026Request } from '@mcp-mining/testkit';

/**
 * Canaries for src/mcp/sdk/: each seam there answers a behaviour of the pinned SDK version. These tests pin that
 * behaviour in the SDK itself, so a new SDK version that changes it fails here, naming the seam to revisit (or drop).
 */

const URL_ = new URL('http://localhost/mcp');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** One JSON-RPC request through SDK 1.32's stateless transport into `server`; the last message of the answer. */
async function over2025Http(server: Server, body: unknown): Promise<{ status: number; messages: unknown[] }> {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const response = await transport.handleRequest(new Request(URL_, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) }));
    const text = await response.text();
    const messages = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as unknown);
    return { status: response.status, messages };
}

async function connected(server: McpServer1): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'canary', version: '1' });
    await client.connect(clientSide);
    return client;
}

const aTask = (status: Task['status']): Task => ({ taskId: 't1', status, ttl: null, createdAt: new Date(0).toISOString(), lastUpdatedAt: new Date(0).toISOString(), pollInterval: 50 });

/** A task store whose one task stays `working`. */
function workingStore(): TaskStore {
    return {
        createTask: async () => aTask('working'),
        getTask: async () => aTask('working'),
        storeTaskResult: async () => undefined,
        getTaskResult: async () => ({ content: [] }),
        updateTaskStatus: async () => undefined,
        listTasks: async () => ({ tasks: [] }),
    };
}

describe('SDK 1.32.2 behaviours the 2025-era seams answer', () => {
    it('errorsSaidOnce.ts: McpError writes "MCP error <code>: " into its own message', () => {
        assert.equal(new McpError(-32602, 'Task not found').message, 'MCP error -32602: Task not found');
    });

    it('invalidParams.ts: the transport runs a JSON-RPC batch instead of refusing it', async () => {
        const { status, messages } = await over2025Http(new Server({ name: 's', version: '1' }), [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
        assert.equal(status, 200);
        assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    });

    it('invalidParams.ts: params that do not fit a known method are answered -32603 with a dump', async () => {
        const server = new Server({ name: 's', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: workingStore() });
        const { messages } = await over2025Http(server, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 5 } });
        const error = (messages[0] as { error: { code: number; message: string } }).error;
        assert.equal(error.code, -32603);
        assert.match(error.message, /invalid_type|expected/);
    });

    it('toolCall2025.ts: McpServer answers an unknown tool as an isError result, and invalid arguments with its prefix', async () => {
        const server = new McpServer1({ name: 's', version: '1' });
        server.registerTool('t', { inputSchema: { n: z.number() } }, async () => ({ content: [] }));
        const client = await connected(server);
        const unknown = await client.callTool({ name: 'nope', arguments: {} });
        assert.equal(unknown.isError, true);
        const invalid = await client.callTool({ name: 't', arguments: { n: 'x' } });
        assert.match((invalid.content as Array<{ text: string }>)[0]?.text ?? '', /^MCP error -32602: Input validation error: Invalid arguments for tool t/);
        await client.close();
    });

    it('toolCall2025.ts: McpServer answers a plain call of an optional task tool by creating a task and polling it', async () => {
        let created = 0;
        const server = new McpServer1({ name: 's', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: workingStore() });
        server.experimental.tasks.registerToolTask(
            't',
            { inputSchema: { n: z.number() }, execution: { taskSupport: 'optional' } },
            {
                createTask: async () => (created++, { task: aTask('completed') }),
                getTask: async () => aTask('completed'),
                getTaskResult: async () => ({ content: [] }),
            }
        );
        const client = await connected(server);
        await client.callTool({ name: 't', arguments: { n: 1 } }, CallToolResultSchema).catch(() => undefined);
        assert.equal(created, 1, 'a plain call created a task');
        await client.close();
    });

    it('boundedTaskResult.ts: tasks/result of a working task is not answered while the task works', async () => {
        const server = new McpServer1({ name: 's', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: workingStore() });
        const client = await connected(server);
        let answered = false;
        const pending = client.request({ method: 'tasks/result', params: { taskId: 't1' } }, CallToolResultSchema).then(
            () => (answered = true),
            () => (answered = true)
        );
        await new Promise((resolve) => setTimeout(resolve, 1000));
        assert.equal(answered, false, 'the SDK still waits after 1 s, 20 of its polls');
        await client.close();
        await pending;
    });

    it('uiSession2025.ts: a stateless transport takes any Mcp-Session-Id; one with a generator sends its id on initialize; the client echoes it', async () => {
        /** One request, one server and transport, as the endpoint builds them: a generator for an initialize only. */
        const serveOnce = async (request: Request): Promise<Response> => {
            if (request.method !== 'POST') return new Response(null, { status: 405 });
            const body = (await request.json()) as { method?: string };
            const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
            server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
            const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: body.method === 'initialize' ? () => 'mcp-apps-canary' : undefined });
            await server.connect(transport);
            return transport.handleRequest(request, { parsedBody: body });
        };
        const sent: Array<string | null> = [];
        const fetchInProcess = async (input: string | URL | Request, init?: RequestInit) => {
            const request = new Request(input, init);
            sent.push(request.headers.get('mcp-session-id'));
            return serveOnce(request);
        };
        const client = new Client({ name: 'canary', version: '1' });
        const transport = new StreamableHTTPClientTransport(URL_, { fetch: fetchInProcess });
        await client.connect(transport);
        assert.equal(transport.sessionId, 'mcp-apps-canary', 'the initialize answer carried the generated id');
        await client.listTools();
        assert.equal(sent.at(-1), 'mcp-apps-canary', 'the client sent it again, and the stateless transport answered');
        await client.close();
    });

    it('resourceLinks.ts: an SDK 1.11 client rejects a tool result that holds a resource_link', () => {
        const result = { content: [{ type: 'text', text: '{}' }, { type: 'resource_link', uri: 'mining://workflows/x', name: 'x' }] };
        assert.equal(CallToolResultSchema111.safeParse(result).success, false);
        assert.equal(CallToolResultSchema111.safeParse({ content: [result.content[0]] }).success, true);
    });
});

/** One raw 2026-07-28 request into a fresh server of `build`, through SDK v2's handler. */
async function over2026(build: () => McpServer2, method: string, params: Record<string, unknown> = {}) {
    const handler = createMcpHandler(build, { legacy: 'reject' });
    const response = await handler.fetch(raw2026Request(URL_, { method, params: { ...params, _meta: envelope2026(false) } }));
    return (await answerOf(response, method)).answer;
}

describe('SDK 2.4.0 behaviours the 2026-era seams answer', () => {
    it('standardSchema.ts: McpServer answers arguments that do not fit with its own prefix', async () => {
        const build = () => {
            const server = new McpServer2({ name: 's', version: '1' });
            server.registerTool('t', { inputSchema: z.object({ n: z.number() }) }, async () => ({ content: [] }));
            return server;
        };
        const answer = await over2026(build, 'tools/call', { name: 't', arguments: { n: 'x' } });
        assert.equal(answer.kind, 'result');
        const text = answer.kind === 'result' ? ((answer.result.content as Array<{ text: string }>)[0]?.text ?? '') : '';
        assert.match(text, /^Input validation error: Invalid arguments for tool t/);
    });

    it('standardSchema.ts: McpServer converts a schema to JSON Schema for every server built; the wrapper converts once', async () => {
        const schema = z.object({ n: z.number() });
        let conversions = 0;
        const input = schema['~standard'].jsonSchema.input;
        const counted = { '~standard': { ...schema['~standard'], jsonSchema: { ...schema['~standard'].jsonSchema, input: (o: { target: string }) => (conversions++, input(o)) } } };
        const wrapped = argumentsSchema(counted as unknown as typeof schema);
        for (const inputSchema of [counted, wrapped]) {
            conversions = 0;
            const build = () => {
                const server = new McpServer2({ name: 's', version: '1' });
                server.registerTool('t', { inputSchema: inputSchema as typeof schema }, async () => ({ content: [] }));
                return server;
            };
            await over2026(build, 'tools/list');
            await over2026(build, 'tools/list');
            assert.equal(conversions, inputSchema === wrapped ? 1 : 2);
        }
    });

    it('era2026/server.ts: McpServer advertises listChanged once a tool is registered, unless the capabilities say otherwise', async () => {
        const build = (capabilities?: { tools: { listChanged: boolean } }) => () => {
            const server = new McpServer2({ name: 's', version: '1' }, capabilities === undefined ? {} : { capabilities });
            server.registerTool('t', {}, async () => ({ content: [] }));
            return server;
        };
        const discovered = async (b: () => McpServer2) => {
            const answer = await over2026(b, 'server/discover');
            return answer.kind === 'result' ? (answer.result.capabilities as { tools?: { listChanged?: boolean } }).tools?.listChanged : undefined;
        };
        assert.equal(await discovered(build()), true);
        assert.equal(await discovered(build({ tools: { listChanged: false } })), false);
    });
});
