import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import type { Log } from '../deps';
import { bodyTooLarge, methodNotAllowed, nestedTooDeep } from '../http/errorResponses';
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES, nestsDeeperThan, readBodyWithin } from '../http/requestLimits';

/**
 * Serves one 2026-07-28 request with SDK v2's createMcpHandler, 2025-era traffic refused (it is routed
 * to the 2025 server before it gets here, see ../http/eraRouter.ts). The body is read within the endpoint's
 * limits first, as for the 2025 era. The handler is built per request around that request's server,
 * so the request's caller and backend client never outlive it.
 */
export async function serveModernRequest(request: Request, buildServer: () => McpServer, log: Log): Promise<Response> {
    if (request.method !== 'POST') return methodNotAllowed();
    const body = await readBodyWithin(request, MAX_REQUEST_BODY_BYTES);
    if (body.kind === 'tooLarge') return bodyTooLarge();
    if (nestsDeeperThan(body.text, MAX_JSON_DEPTH)) return nestedTooDeep();
    const headers = new Headers(request.headers);
    // The text may differ in byte length from what arrived (invalid UTF-8 becomes U+FFFD): drop the old length.
    headers.delete('content-length');
    const limited = new Request(request.url, { method: request.method, headers, body: body.text });
    const handler = createMcpHandler(buildServer, {
        legacy: 'reject',
        // JSON unless the call sends progress first, then SSE.
        responseMode: 'auto',
        maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
        // Rejected requests already reach the client as JSON-RPC errors; this is for the operator.
        onerror: (error) => log.warn('MCP (2026-07-28) request error', error),
    });
    return handler.fetch(limited);
}
