import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rpcError, withoutRepeatedPrefix } from '../../src/mcp/sdk/errorsSaidOnce';
import { requestProtocolVersion, resourceLinksAllowed, resultForClient } from '../../src/mcp/sdk/resourceLinks';

const overHttp = (headers: Record<string, string>) => ({ requestInfo: { headers } });

const linked: CallToolResult = {
    content: [
        { type: 'text', text: '{}' },
        { type: 'resource_link', uri: 'mining://workflows/x', name: 'x' },
    ],
    structuredContent: { status: 'running' },
};

describe('the protocol version of a request, and resource_link', () => {
    it('reads the MCP-Protocol-Version header; none is 2025-03-26; no HTTP at all is unknown', () => {
        assert.equal(requestProtocolVersion(overHttp({ 'mcp-protocol-version': '2025-06-18' })), '2025-06-18');
        assert.equal(requestProtocolVersion(overHttp({})), '2025-03-26');
        assert.equal(requestProtocolVersion({}), undefined);
    });

    it('keeps resource_link from 2025-06-18 on (and without HTTP), drops it before, and keeps everything else', () => {
        for (const version of ['2025-06-18', '2025-11-25']) assert.ok(resourceLinksAllowed(overHttp({ 'mcp-protocol-version': version })));
        assert.ok(resourceLinksAllowed({}));
        assert.equal(resultForClient(linked, {}), linked);
        const headerSets: Record<string, string>[] = [{}, { 'mcp-protocol-version': '2025-03-26' }, { 'mcp-protocol-version': '2024-11-05' }];
        for (const headers of headerSets) {
            const result = resultForClient(linked, overHttp(headers));
            assert.deepEqual(result.content, [{ type: 'text', text: '{}' }]);
            assert.deepEqual(result.structuredContent, linked.structuredContent);
        }
    });
});

describe('JSON-RPC error messages said once', () => {
    it('strips the McpError prefix, repeated or not, and leaves other text alone', () => {
        assert.equal(withoutRepeatedPrefix(new McpError(-32602, 'Task not found').message), 'Task not found');
        assert.equal(withoutRepeatedPrefix('MCP error -32602: MCP error -32602: x'), 'x');
        assert.equal(withoutRepeatedPrefix('An MCP error -32602: stays'), 'An MCP error -32602: stays');
        const error = rpcError(-32601, 'No tasks here');
        assert.equal(error.code, -32601);
        assert.equal(error.message, 'No tasks here');
    });
});
