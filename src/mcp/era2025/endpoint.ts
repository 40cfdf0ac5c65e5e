import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Log } from '../deps';
import { errorsSaidOnce } from './errorsSaidOnce';
import { checkMessage } from './messageChecks';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES, nestsDeeperThan, readBodyWithin } from '../http/requestLimits';
import { bodyTooLarge, internalError, JSON_HEADERS, jsonRpcError, methodNotAllowed, nestedTooDeep } from '../http/errorResponses';

/**
 * The 2025-era endpoint: stateless Streamable HTTP over web-standard Request/Response, one fresh server
 * and transport per request (the SDK refuses to reuse a stateless transport), in SSE mode so that progress
 * notifications reach the client on the response stream. Knows nothing of Azure Functions.
 */

function headersLookRight(headers: Headers): boolean {
    const accept = headers.get('accept') ?? '';
    const type = (headers.get('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase();
    return accept.includes('application/json') && accept.includes('text/event-stream') && type === 'application/json';
}

/** Undefined for text that is not JSON: the transport answers that with its own parse error. */
function parseOrUndefined(text: string): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return undefined;
    }
}

/**
 * The request as the transport gets it: its body read within the endpoint's limits into a fresh Request
 * (the transport then checks Accept, Content-Type and JSON-RPC itself, in its own order); or the answer
 * for a body beyond the limits, a batch, or params that do not fit their method.
 */
async function admit(request: Request): Promise<Request | Response> {
    const body = await readBodyWithin(request, MAX_REQUEST_BODY_BYTES);
    if (body.kind === 'tooLarge') return bodyTooLarge();
    if (nestsDeeperThan(body.text, MAX_JSON_DEPTH)) return nestedTooDeep();
    const rejection = headersLookRight(request.headers) ? checkMessage(parseOrUndefined(body.text)) : undefined;
    if (rejection) return new Response(JSON.stringify(rejection.body), { status: rejection.status, headers: JSON_HEADERS });
    // The text may differ in byte length from what arrived (invalid UTF-8 becomes U+FFFD): drop the old length.
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    return new Request(request.url, { method: request.method, headers, body: body.text });
}

/**
 * Serves one MCP POST. The server is closed when the response stream ends or is cancelled (closing
 * earlier would cut the SSE stream). A cancel would also abort the tool handlers; but in HTTP stream mode
 * `@azure/functions` drains the body without cancelling it when the client leaves, so in practice a
 * wait runs to its budget (bounded, and the workflow is unaffected either way).
 */
export async function serveMcpRequest(request: Request, buildServer: () => McpServer, log: Log): Promise<Response> {
    if (request.method !== 'POST') return methodNotAllowed();

    let limited: Request | Response;
    try {
        limited = await admit(request);
    } catch (error) {
        // The body stream failed (the client went away mid-body): nothing to serve.
        log.warn('Reading the MCP request body failed', error);
        return jsonRpcError(400, -32700, 'Parse error: the request body could not be read.');
    }
    if (limited instanceof Response) return limited;

    const server = buildServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        // Already enforced above; the same bound here keeps the two from drifting apart.
        maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    });
    // Protocol errors already reach the client as 4xx JSON-RPC errors; this is for the operator.
    transport.onerror = (error) => log.warn('MCP transport error', error);
    const close = () => server.close().catch((error: unknown) => log.warn('Closing the MCP server failed', error));

    let response: Response;
    try {
        // Requests go to the transport itself; the server answers through a view of it that says each error once.
        await server.connect(errorsSaidOnce(transport));
        response = await transport.handleRequest(limited);
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
