import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION, type JSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';
import { clearError, isBatch } from '../../src/mcp/sdk/invalidParams';

const call = (params: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
/** What SDK 1.32 sends for a request whose params fail its schema: -32603 and a dump. */
const dumped = (id: unknown): JSONRPCErrorResponse => ({ jsonrpc: '2.0', id: id as string, error: { code: -32603, message: '[{"code":"invalid_type", …}]' } });

describe('the SDK 1.32 answers to params that do not fit, said clearly', () => {
    it('takes any JSON array for a batch', () => {
        for (const batch of [[], [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], [1, 2]]) assert.ok(isBatch(batch));
        for (const message of [{}, 'x', null, undefined]) assert.equal(isBatch(message), false);
    });

    it('answers a known method with params that do not fit with -32602, naming paths and not values', () => {
        const cases: [unknown, RegExp][] = [
            [call({ name: 'start_mining', arguments: 'x'.repeat(10_000) }), /params\.arguments/],
            [call({ name: 'start_mining', arguments: [1, 2] }), /params\.arguments/],
            [call({ arguments: {} }), /params\.name/],
            [call([]), /params/],
            [{ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: 'x' }, /params/],
            [call({ name: 'start_mining', _meta: { progressToken: {} } }), /params\._meta\.progressToken/],
        ];
        for (const [message, path] of cases) {
            const id = (message as { id: unknown }).id;
            const said = clearError(dumped(id), message) as JSONRPCErrorResponse;
            assert.equal(said.error.code, -32602, JSON.stringify(message).slice(0, 100));
            assert.equal(said.id, id);
            assert.match(said.error.message, path);
            assert.ok(said.error.message.length < 200, 'short, and no value echoed');
        }
    });

    it('leaves the SDK\'s error for valid requests, unknown methods and anything not one request of its own', () => {
        const untouched: unknown[] = [
            call({ name: 'start_mining', arguments: { difficulty: 1 } }),
            call({ name: 'no_such_tool' }),
            { jsonrpc: '2.0', id: 1, method: 'tools/list' },
            { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
            { jsonrpc: '2.0', id: 1, method: 'no/such/method', params: 'x' },
            { jsonrpc: '1.0', id: 1, method: 'tools/call', params: 'x' },
            call('x', 2),
            { hello: 'world' },
            [call('x')],
            'text',
            null,
            undefined,
        ];
        for (const message of untouched) {
            const error = dumped(1);
            assert.equal(clearError(error, message), error, JSON.stringify(message));
        }
    });
});
