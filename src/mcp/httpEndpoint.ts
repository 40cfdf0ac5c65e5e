import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Log } from './deps';

/**
 * Stateless Streamable HTTP over web-standard Request/Response: one fresh server and transport per
 * request (the SDK refuses to reuse a stateless transport), in SSE mode so that progress
 * notifications reach the client on the response stream. Knows nothing of Azure Functions.
 */

const JSON_HEADERS = { 'Content-Type': 'application/json' };

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
        status,
        headers: { ...JSON_HEADERS, ...headers },
    });
}

/**
 * GET would open a standalone SSE stream that a stateless server can never write to (it idles until
 * the platform timeout), and DELETE has no session to end: both get 405, which clients accept.
 */
export function methodNotAllowed(): Response {
    return jsonRpcError(405, -32000, 'Method not allowed: this stateless MCP endpoint accepts POST only.', { Allow: 'POST' });
}

/** The answer to an unexpected failure: a JSON-RPC internal error, details only in the log. */
export function internalError(): Response {
    return jsonRpcError(500, -32603, 'Internal error: the MCP endpoint failed unexpectedly. Try again.');
}

/**
 * Serves one MCP POST. The server is closed when the response stream ends or is cancelled (closing
 * earlier would cut the SSE stream). A cancel would also abort the tool handlers; but in HTTP stream mode
 * `@azure/functions` drains the body without cancelling it when the client leaves, so in practice a
 * wait runs to its budget (bounded, and the workflow is unaffected either way).
 */
export async function serveMcpRequest(request: Request, buildServer: () => McpServer, log: Log): Promise<Response> {
    if (request.method !== 'POST') return methodNotAllowed();

    const server = buildServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // Protocol errors already reach the client as 4xx JSON-RPC errors; this is for the operator.
    transport.onerror = (error) => log.warn('MCP transport error', error);
    const close = () => server.close().catch((error: unknown) => log.warn('Closing the MCP server failed', error));

    let response: Response;
    try {
        await server.connect(transport);
        response = await transport.handleRequest(request);
    } catch (error) {
        log.error('MCP request failed', error);
        await close();
        return internalError();
    }

    if (response.body === null) {
        // 202 for notifications, and the transport's error answers: nothing left to stream.
        await close();
        return response;
    }
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    // pipeTo settles when the transport ends the stream, or rejects when the reader cancels it.
    void response.body
        .pipeTo(writable)
        .catch(() => undefined)
        .finally(close);
    return new Response(readable, { status: response.status, statusText: response.statusText, headers: response.headers });
}
