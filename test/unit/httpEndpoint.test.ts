import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpRequest } from '@azure/functions';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { endpointFor } from './helpers/endpoint';
import { FakeDurableClient, MemoryLog } from './helpers/fakes';

const URL_ = 'http://localhost:7071/api/mcp';
const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests' });
const ACCEPT = 'application/json, text/event-stream';

/** The endpoint over a backend where everything is still running. */
function endpoint() {
    const client = new FakeDurableClient(() => ({ runtimeStatus: 'Running', input: null, output: null }));
    return { serve: endpointFor(CONFIG, { client, log: new MemoryLog(), tenant: SHARED_TENANT }) };
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

describe('MCP HTTP endpoint', () => {
    it('answers GET and DELETE with 405, Allow: POST and a JSON-RPC error', async () => {
        const { serve } = endpoint();
        for (const method of ['GET', 'DELETE']) {
            const res = await serve(new Request(URL_, { method, headers: { accept: 'text/event-stream' } }));
            assert.equal(res.status, 405);
            assert.equal(res.headers.get('allow'), 'POST');
            const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
            assert.equal(body.jsonrpc, '2.0');
            assert.equal(typeof body.error.code, 'number');
        }
    });

    it('serves initialize and tools/list as SSE', async () => {
        const { serve } = endpoint();
        const init = await serve(post(rpc('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } })));
        assert.equal(init.status, 200);
        assert.match(init.headers.get('content-type') ?? '', /text\/event-stream/);
        const [initAnswer] = sseMessages(await init.text());
        assert.equal((initAnswer?.result as { serverInfo: { name: string } }).serverInfo.name, 'mcp-durable-mining');

        const list = await serve(post(rpc('tools/list', {}, 2)));
        const [listAnswer] = sseMessages(await list.text());
        const tools = (listAnswer?.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort();
        assert.deepEqual(tools, ['cancel_mining', 'get_mining_result', 'start_mining']);
    });

    it('streams tools/call results, with no session id', async () => {
        const { serve } = endpoint();
        const res = await serve(post(rpc('tools/call', { name: 'get_mining_result', arguments: { workflow_id: 'a/b' } })));
        assert.equal(res.headers.get('mcp-session-id'), null);
        const [answer] = sseMessages(await res.text());
        const result = answer?.result as { structuredContent: { status: string }; isError?: boolean };
        assert.equal(result.structuredContent.status, 'not_found');
        assert.notEqual(result.isError, true);
    });

    it("gives protocol errors the transport's 4xx JSON-RPC answers, never a 500", async () => {
        const { serve } = endpoint();
        const cases: Array<[Request, number, number]> = [
            [post('{not json'), 400, -32700],
            [post(''), 400, -32700],
            // Not a JSON-RPC message: SDK v2's classifier takes it for the 2026 era, whose handler refuses it.
            [post(JSON.stringify({ hello: 'world' })), 400, -32600],
            [post(rpc('tools/list'), { accept: 'application/json' }), 406, -32000],
            [post(rpc('tools/list'), { 'content-type': 'text/plain' }), 415, -32000],
            [post(rpc('tools/list'), { 'mcp-protocol-version': '1999-01-01' }), 400, -32000],
        ];
        for (const [request, status, code] of cases) {
            const res = await serve(request);
            assert.equal(res.status, status);
            const body = (await res.json()) as { error: { code: number; message: string } };
            assert.equal(body.error.code, code);
            assert.doesNotMatch(body.error.message, /\n\s+at /);
        }
    });

    it('answers an unknown method with a JSON-RPC error, and notifications with 202', async () => {
        const { serve } = endpoint();
        const res = await serve(post(rpc('no/such/method')));
        assert.equal(res.status, 200);
        const [answer] = sseMessages(await res.text());
        assert.equal((answer?.error as { code: number }).code, -32601);
        const note = await serve(post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
        assert.equal(note.status, 202);
    });
});

describe('the Functions request', () => {
    it('is served end to end as the function hands it over (a Functions HttpRequest, its body a web stream)', async () => {
        const { serve } = endpoint();
        const request = new HttpRequest({
            method: 'POST',
            url: `${URL_}?code=abc`,
            headers: { 'content-type': 'application/json', accept: ACCEPT, 'x-functions-key': 'k' },
            body: { string: rpc('tools/list') },
        });
        const res = await serve(request as HttpRequest & { body: ReadableStream<Uint8Array> | null });
        assert.equal(res.status, 200);
        assert.equal(sseMessages(await res.text()).length, 1);
    });
});
