import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES, nestsDeeperThan, readBodyWithin } from '../../src/mcp/http/requestLimits';
import { until } from '@mcp-mining/testkit';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { endpointFor } from './helpers/endpoint';
import { FakeDurableClient, MemoryLog } from './helpers/fakes';

const URL_ = 'http://localhost:7071/api/mcp';
const HEADERS = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};

const serve = endpointFor(parseConfig({ TASKHUB_NAME: 'unittests' }), {
    client: new FakeDurableClient(() => ({ runtimeStatus: 'Running', input: null, output: null })),
    log: new MemoryLog(),
    tenant: SHARED_TENANT,
});

/** A body streamed in chunks, with no Content-Length, as a chunked upload arrives. */
function streamed(chunk: string, times: number): ReadableStream<Uint8Array> {
    const bytes = new TextEncoder().encode(chunk);
    let sent = 0;
    return new ReadableStream({
        pull(controller) {
            if (sent++ < times) controller.enqueue(bytes);
            else controller.close();
        },
    });
}

describe('request limits', () => {
    it('nestsDeeperThan counts brackets outside strings only', () => {
        assert.equal(nestsDeeperThan('[[[]]]', 3), false);
        assert.equal(nestsDeeperThan('[[[[]]]]', 3), true);
        assert.equal(nestsDeeperThan('{"a":{"b":[1]}}', 3), false);
        assert.equal(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 3), false, 'brackets inside a string do not count');
        assert.equal(nestsDeeperThan(`{"a":"\\"${'['.repeat(10)}"}`, 3), false, 'an escaped quote does not end the string');
        assert.equal(nestsDeeperThan('['.repeat(100_000), MAX_JSON_DEPTH), true);
    });

    it('readBodyWithin stops at the limit, with or without a Content-Length', async () => {
        const declared = new Request(URL_, { method: 'POST', headers: { 'content-length': '2000' }, body: 'x'.repeat(2000) });
        assert.deepEqual(await readBodyWithin(declared, 1000), { kind: 'tooLarge' });
        const chunked = new Request(URL_, { method: 'POST', body: streamed('y'.repeat(100), 50), duplex: 'half' } as RequestInit);
        assert.deepEqual(await readBodyWithin(chunked, 1000), { kind: 'tooLarge' });
        const small = new Request(URL_, { method: 'POST', body: 'é'.repeat(10) });
        assert.deepEqual(await readBodyWithin(small, 1000), { kind: 'ok', text: 'é'.repeat(10) });
    });

    it('the endpoint answers a chunked body over the limit with 413 in either era, and drains the rest', async () => {
        const eras = [{}, { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }];
        for (const params of eras) {
            const head = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }).slice(0, -2);
            let pulled = 0;
            const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
            const body = new ReadableStream<Uint8Array>({
                start: (controller) => controller.enqueue(new TextEncoder().encode(head)),
                pull(controller) {
                    // 40 chunks of 64 KiB: 2.5 MiB, sent as a chunked upload arrives.
                    if (pulled++ < 40) controller.enqueue(chunk);
                    else controller.close();
                },
            });
            const request = new Request(URL_, { method: 'POST', headers: HEADERS, body, duplex: 'half' } as RequestInit);
            const res = await serve(request);
            assert.equal(res.status, 413);
            assert.match(((await res.json()) as { error: { message: string } }).error.message, /Payload Too Large/);
            // The rest is read and discarded (the connection it came on stays usable), to its end.
            await until(() => pulled > 40, 'the rest of the body drained', 5000);
        }
    });

    it('the endpoint serves a body within the limit in the era it belongs to, streamed or not', async () => {
        const legacy = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        const modern = JSON.stringify({
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/list',
            params: {
                _meta: {
                    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                    'io.modelcontextprotocol/clientInfo': { name: 'unit', version: '1' },
                    'io.modelcontextprotocol/clientCapabilities': {},
                },
            },
        });
        // The 2025 transport answers in SSE, the 2026 handler in JSON with the revision's resultType.
        const old = await serve(new Request(URL_, { method: 'POST', headers: HEADERS, body: streamed(legacy, 1), duplex: 'half' } as RequestInit));
        assert.match(old.headers.get('content-type') ?? '', /text\/event-stream/);
        assert.match(await old.text(), /start_mining/);
        const headers2026 = { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
        const now = await serve(new Request(URL_, { method: 'POST', headers: headers2026, body: modern }));
        const answer = (await now.json()) as { result: { resultType?: string; tools: unknown[] } };
        assert.equal(answer.result.resultType, 'complete');
        const broken = await serve(new Request(URL_, { method: 'POST', headers: HEADERS, body: '{not json' }));
        assert.equal(broken.status, 400);
        assert.equal(((await broken.json()) as { error: { code: number } }).error.code, -32700);
    });

    it('the endpoint answers a body over the limit with 413 and a JSON-RPC error', async () => {
        const padding = 'x'.repeat(MAX_REQUEST_BODY_BYTES);
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding } });
        const res = await serve(new Request(URL_, { method: 'POST', headers: HEADERS, body }));
        assert.equal(res.status, 413);
        const answer = (await res.json()) as { error: { code: number; message: string } };
        assert.equal(answer.error.code, -32000);
        assert.match(answer.error.message, new RegExp(String(MAX_REQUEST_BODY_BYTES)));
    });

    it('the endpoint answers JSON nested too deep with 400, never a crash', async () => {
        for (const body of ['['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '['.repeat(100_000)]) {
            const res = await serve(new Request(URL_, { method: 'POST', headers: HEADERS, body }));
            assert.equal(res.status, 400);
            const answer = (await res.json()) as { error: { code: number } };
            assert.equal(answer.error.code, -32600);
        }
    });

    it('a message within the limits is still served', async () => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
        const res = await serve(new Request(URL_, { method: 'POST', headers: HEADERS, body }));
        assert.equal(res.status, 200);
        assert.match(await res.text(), /start_mining/);
    });
});
