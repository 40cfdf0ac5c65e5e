import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * Checks on the parsed JSON-RPC message that the MCP transport would answer less clearly: a batch (MCP
 * removed JSON-RPC batching in 2025-06-18; the transport would still run it, and answer an empty one
 * with 202), and a request for a known method whose params do not fit it (the SDK answers that with
 * -32603 "internal error" and a dump of schema issues). Anything else is left to the transport.
 */

export interface JsonRpcRejection {
    status: number;
    body: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };
}

/** The methods a client may call, from the SDK's own union of client requests. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(
    ClientRequestSchema.options.map((option) => option.shape.method.value as string)
);

/** Most issue paths named in one message: enough to fix a request, short enough to read. */
const MAX_PATHS = 5;

export function checkMessage(message: unknown): JsonRpcRejection | undefined {
    if (Array.isArray(message)) {
        return {
            status: 400,
            body: {
                jsonrpc: '2.0',
                id: null,
                error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per request.' },
            },
        };
    }
    if (typeof message !== 'object' || message === null) return undefined;
    const { jsonrpc, id, method } = message as Record<string, unknown>;
    // Only well-formed requests for a known method; the transport answers anything else itself.
    if (jsonrpc !== '2.0' || typeof method !== 'string' || !KNOWN_METHODS.has(method)) return undefined;
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
    const parsed = ClientRequestSchema.safeParse(message);
    if (parsed.success) return undefined;
    return {
        // A JSON-RPC error answer to a request the server understood: 200, as the transport sends its own errors.
        status: 200,
        body: { jsonrpc: '2.0', id, error: { code: -32602, message: invalidParamsMessage(method, message) } },
    };
}

/**
 * Names what is wrong by path only (never by value, which may be huge or hostile): the request is
 * checked against its method's own schema, so the paths point into its params.
 */
function invalidParamsMessage(method: string, message: object): string {
    const schema = ClientRequestSchema.options.find((option) => option.shape.method.value === method);
    const issues = schema?.safeParse(message).error?.issues ?? [];
    const paths = [...new Set(issues.map((issue) => issue.path.map(String).join('.') || '(message)'))];
    const named = paths.slice(0, MAX_PATHS).join(', ') + (paths.length > MAX_PATHS ? ', …' : '');
    return `Invalid params for ${method}${named ? `: check ${named}` : ''}.`;
}
