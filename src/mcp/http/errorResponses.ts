import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES } from './requestLimits';

/**
 * The endpoint's own answers, as JSON-RPC errors with their HTTP status, for both eras: a method the
 * stateless endpoint does not serve, a body too large or nested too deep, an unexpected failure.
 */

export const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
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

/** 413, whatever the host's own (much larger) limit: no MCP message comes near it. */
export function bodyTooLarge(): Response {
    return jsonRpcError(413, -32000, `Payload Too Large: the request body must not exceed ${MAX_REQUEST_BODY_BYTES} bytes.`);
}

/** 400 for JSON nested absurdly deep, before anything recursive walks it. */
export function nestedTooDeep(): Response {
    return jsonRpcError(400, -32600, `Invalid Request: JSON must not nest deeper than ${MAX_JSON_DEPTH} levels.`);
}
