import { ClientRequestSchema, type JSONRPCErrorResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: two requests the 2025 transport answers less clearly than it should.
 * - A batch: MCP removed JSON-RPC batching in 2025-06-18, but the transport still runs one (and answers an
 *   empty one with 202). Refused before the transport sees it (`batchRefusal`).
 * - A request for a known method whose params do not fit it: the SDK answers -32603 "internal error" with a dump
 *   of zod issues (-32602 with the dump for tools/call). On the way out, such an error becomes -32602 naming the
 *   paths (`clearError`, called by ./transport2025.ts): the request is checked against its method's schema only
 *   when the SDK has already answered it with an error, so a request that fits is parsed once, by the SDK.
 * Canary: test/unit/sdkSeams.test.ts.
 */

/** Each method a client may call, with its own request schema (from the SDK's union of client requests). */
const SCHEMAS = new Map(ClientRequestSchema.options.map((option) => [option.shape.method.value as string, option] as const));

/** Most issue paths named in one message: enough to fix a request, short enough to read. */
const MAX_PATHS = 5;

export const BATCH_REFUSED = {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per request.' },
} as const;

/** Whether the parsed body is a batch, which is refused with 400 and BATCH_REFUSED. */
export function isBatch(message: unknown): boolean {
    return Array.isArray(message);
}

/**
 * The error the SDK sent for `request`, or -32602 naming what is wrong by path only (never by value, which may be
 * huge or hostile) when the request is a well-formed call of a known method whose params do not fit it.
 */
export function clearError(error: JSONRPCErrorResponse, request: unknown): JSONRPCMessage {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) return error;
    const { jsonrpc, id, method } = request as Record<string, unknown>;
    const schema = typeof method === 'string' ? SCHEMAS.get(method) : undefined;
    if (jsonrpc !== '2.0' || schema === undefined || id !== error.id) return error;
    const issues = schema.safeParse(request).error?.issues;
    if (issues === undefined) return error;
    const paths = [...new Set(issues.map((issue) => issue.path.map(String).join('.') || '(message)'))];
    const named = paths.slice(0, MAX_PATHS).join(', ') + (paths.length > MAX_PATHS ? ', …' : '');
    return { jsonrpc: '2.0', id: error.id, error: { code: -32602, message: `Invalid params for ${method}${named ? `: check ${named}` : ''}.` } };
}
