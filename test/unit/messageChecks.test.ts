import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { checkMessage } from '../../src/mcp/era2025/messageChecks';

const call = (params: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('JSON-RPC message checks', () => {
    it('refuses batches, the empty one included, with 400 and -32600', () => {
        for (const batch of [[], [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], [1, 2]]) {
            const rejection = checkMessage(batch);
            assert.equal(rejection?.status, 400);
            assert.equal(rejection?.body.error.code, -32600);
            assert.equal(rejection?.body.id, null);
        }
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
            const rejection = checkMessage(message);
            assert.equal(rejection?.status, 200, JSON.stringify(message).slice(0, 100));
            assert.equal(rejection?.body.error.code, -32602);
            assert.equal(rejection?.body.id, (message as { id: unknown }).id);
            assert.match(rejection?.body.error.message ?? '', path);
            assert.ok((rejection?.body.error.message.length ?? 0) < 200, 'short, and no value echoed');
        }
    });

    it('leaves valid requests, notifications, unknown methods and non-requests to the transport', () => {
        const untouched: unknown[] = [
            call({ name: 'start_mining', arguments: { difficulty: 1 } }),
            call({ name: 'no_such_tool' }),
            { jsonrpc: '2.0', id: 2, method: 'tools/list' },
            { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { jsonrpc: '2.0', id: 4, method: 'no/such/method', params: 'x' },
            { jsonrpc: '1.0', id: 5, method: 'tools/call', params: 'x' },
            { jsonrpc: '2.0', id: {}, method: 'tools/call', params: 'x' },
            { hello: 'world' },
            'text',
            null,
            undefined,
        ];
        for (const message of untouched) assert.equal(checkMessage(message), undefined, JSON.stringify(message));
    });
});
