import { SHARED_TENANT } from '../../src/workflow/tenant';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpRequest } from '@azure/functions';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { toResponseInit, toWebRequest } from '../../src/mcp/http/functionsHttp';
import { serveMcpRequest } from '../../src/mcp/era2025/endpoint';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { FakeDurableClient, MemoryLog } from './helpers/fakes';

const URL_ = 'http://localhost:7071/api/mcp';
const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests' });
const ACCEPT = 'application/json, text/event-stream';

/** A server factory that counts the servers built and closed, over a backend where everything is still running. */
function servers() {
    const built: McpServer[] = [];
    let closed = 0;
    const log = new MemoryLog();
    const build = () => {
        const server = buildMcpServer({
            client: new FakeDurableClient(() => ({ runtimeStatus: 'Running', input: null, output: null })),
            config: CONFIG,
            log,
            tenant: SHARED_TENANT,
        });
        const close = server.close.bind(server);
        server.close = async () => {
            closed++;
            await close();
        };
        built.push(server);
        return server;
    };
    return { build, built, log, closed: () => closed };
}

function post(body: string, headers: Record<string, string> = {}): Request {
    return new Request(URL_, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers },
        body,
    });
}

const rpc = (method: string, params: unknown = {}, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** The JSON-RPC messages of an SSE body. */
function sseMessages(text: string): Array<Record<string, unknown>> {
    return text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

async function settle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
}

describe('MCP HTTP endpoint', () => {
    it('answers GET and DELETE with 405, Allow: POST and a JSON-RPC error, without building a server', async () => {
        const s = servers();
        for (const method of ['GET', 'DELETE']) {
            const res = await serveMcpRequest(new Request(URL_, { method, headers: { accept: 'text/event-stream' } }), s.build, s.log);
            assert.equal(res.status, 405);
            assert.equal(res.headers.get('allow'), 'POST');
            const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
            assert.equal(body.jsonrpc, '2.0');
            assert.equal(typeof body.error.code, 'number');
        }
        assert.equal(s.built.length, 0);
    });

    it('serves initialize and tools/list as SSE, and closes the server when the stream ends', async () => {
        const s = servers();
        const init = await serveMcpRequest(
            post(rpc('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } })),
            s.build,
            s.log
        );
        assert.equal(init.status, 200);
        assert.match(init.headers.get('content-type') ?? '', /text\/event-stream/);
        const [initAnswer] = sseMessages(await init.text());
        assert.equal((initAnswer?.result as { serverInfo: { name: string } }).serverInfo.name, 'mcp-durable-mining');

        const list = await serveMcpRequest(post(rpc('tools/list', {}, 2)), s.build, s.log);
        const [listAnswer] = sseMessages(await list.text());
        const tools = (listAnswer?.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort();
        assert.deepEqual(tools, ['cancel_mining', 'get_mining_result', 'start_mining']);
        await settle();
        assert.equal(s.built.length, 2, 'a fresh server per request');
        assert.equal(s.closed(), 2);
    });

    it('streams tools/call results, with no session id', async () => {
        const s = servers();
        const res = await serveMcpRequest(post(rpc('tools/call', { name: 'get_mining_result', arguments: { workflow_id: 'a/b' } })), s.build, s.log);
        assert.equal(res.headers.get('mcp-session-id'), null);
        const [answer] = sseMessages(await res.text());
        const result = answer?.result as { structuredContent: { status: string }; isError?: boolean };
        assert.equal(result.structuredContent.status, 'not_found');
        assert.notEqual(result.isError, true);
    });

    it('gives protocol errors the transport\'s 4xx JSON-RPC answers, never a 500', async () => {
        const s = servers();
        const cases: Array<[Request, number, number]> = [
            [post('{not json'), 400, -32700],
            [post(JSON.stringify({ hello: 'world' })), 400, -32700],
            [post(rpc('tools/list'), { accept: 'application/json' }), 406, -32000],
            [post(rpc('tools/list'), { 'content-type': 'text/plain' }), 415, -32000],
            [post(rpc('tools/list'), { 'mcp-protocol-version': '1999-01-01' }), 400, -32000],
        ];
        for (const [request, status, code] of cases) {
            const res = await serveMcpRequest(request, s.build, s.log);
            assert.equal(res.status, status);
            const body = (await res.json()) as { error: { code: number; message: string } };
            assert.equal(body.error.code, code);
            assert.doesNotMatch(body.error.message, /\n\s+at /);
        }
        await settle();
        assert.equal(s.closed(), s.built.length, 'every server is closed');
    });

    it('answers an unknown method with a JSON-RPC error, and notifications with 202', async () => {
        const s = servers();
        const res = await serveMcpRequest(post(rpc('no/such/method')), s.build, s.log);
        assert.equal(res.status, 200);
        const [answer] = sseMessages(await res.text());
        assert.equal((answer?.error as { code: number }).code, -32601);

        const note = await serveMcpRequest(post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), s.build, s.log);
        assert.equal(note.status, 202);
        await settle();
        assert.equal(s.closed(), 2);
    });

    it('turns an unexpected failure into a JSON-RPC internal error without details', async () => {
        const log = new MemoryLog();
        const broken = () => {
            const server = new McpServer({ name: 'x', version: '1' });
            server.connect = async () => {
                throw new Error('secret internals at /home/site/wwwroot');
            };
            return server;
        };
        const res = await serveMcpRequest(post(rpc('tools/list')), broken, log);
        assert.equal(res.status, 500);
        const text = await res.text();
        const body = JSON.parse(text) as { error: { code: number } };
        assert.equal(body.error.code, -32603);
        assert.doesNotMatch(text, /secret|wwwroot/);
        assert.ok(log.lines.some((line) => line[0] === 'error'));
    });

    it('closes the server, aborting its tool calls, when the client cancels the stream', async () => {
        const s = servers();
        // start_mining waits on a workflow that never ends: only the cancel can finish it early.
        const res = await serveMcpRequest(post(rpc('tools/call', { name: 'start_mining', arguments: { difficulty: 1 } })), s.build, s.log);
        assert.equal(res.status, 200);
        assert.ok(res.body);
        await res.body.cancel();
        await settle();
        assert.equal(s.closed(), 1);
    });
});

describe('Functions HTTP conversion', () => {
    it('turns a Functions POST into a web Request with the same method, URL, headers and body', async () => {
        const body = rpc('tools/list');
        const request = new HttpRequest({
            method: 'POST',
            url: `${URL_}?code=abc`,
            headers: { 'content-type': 'application/json', accept: ACCEPT, 'x-functions-key': 'k' },
            body: { string: body },
        });
        const web = toWebRequest(request);
        assert.equal(web.method, 'POST');
        assert.equal(web.url, `${URL_}?code=abc`);
        assert.equal(web.headers.get('x-functions-key'), 'k');
        assert.equal(await web.text(), body);
    });

    it('turns a Functions GET into a body-less web Request', () => {
        const web = toWebRequest(new HttpRequest({ method: 'GET', url: URL_, headers: {} }));
        assert.equal(web.method, 'GET');
        assert.equal(web.body, null);
    });

    it('serves a Functions request end to end through the conversions', async () => {
        const s = servers();
        const request = new HttpRequest({
            method: 'POST',
            url: URL_,
            headers: { 'content-type': 'application/json', accept: ACCEPT },
            body: { string: rpc('tools/list') },
        });
        const init = toResponseInit(await serveMcpRequest(toWebRequest(request), s.build, s.log));
        assert.equal(init.status, 200);
        const text = await new Response(init.body as ReadableStream<Uint8Array>).text();
        assert.equal(sseMessages(text).length, 1);
    });
});
