/**
 * A raw 2026-07-28 request over HTTP, as the ext-tasks client session needs one (its `rawDispatch`: SDK
 * v2's Client cannot send the extension's task wire shapes). Sets the headers the revision asks for
 * (MCP-Protocol-Version, Mcp-Method, and Mcp-Name: the tool on tools/call, the task on tasks/*), and reads
 * the answer as JSON or as an SSE stream whose last message is the response.
 */

export const PROTOCOL_2026 = '2026-07-28';

export type JsonRpcAnswer =
    | { kind: 'result'; result: Record<string, unknown> }
    | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

let nextId = 1;

function mcpName(method: string, params: Record<string, unknown>): string | undefined {
    if (method === 'tools/call' && typeof params.name === 'string') return params.name;
    if (method.startsWith('tasks/') && typeof params.taskId === 'string') return params.taskId;
    return undefined;
}

/** The JSON-RPC messages of a response body: one JSON object, or the `data:` lines of SSE events. */
function messagesOf(contentType: string, text: string): unknown[] {
    if (!contentType.includes('text/event-stream')) return text.trim() === '' ? [] : [JSON.parse(text)];
    return text
        .split(/\r?\n\r?\n/)
        .map((event) =>
            event
                .split(/\r?\n/)
                .filter((line) => line.startsWith('data:'))
                .map((line) => line.slice(5).trimStart())
                .join('\n')
        )
        .filter((data) => data !== '')
        .map((data) => JSON.parse(data) as unknown);
}

/** One 2026 request (already framed with its `_meta` envelope) as an HTTP Request with the revision's headers. */
export function raw2026Request(
    url: URL,
    request: { method: string; params?: Record<string, unknown> },
    headers: Record<string, string> = {},
    signal?: AbortSignal
): Request {
    const params = request.params ?? {};
    const name = mcpName(request.method, params);
    return new Request(url, {
        method: 'POST',
        headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': PROTOCOL_2026,
            'mcp-method': request.method,
            ...(name === undefined ? {} : { 'mcp-name': name }),
            ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...request }),
        ...(signal === undefined ? {} : { signal }),
    });
}

/** The JSON-RPC answer in an HTTP response (JSON, or the last response message of an SSE stream). */
export async function answerOf(response: Response, method = 'the request'): Promise<{ httpStatus: number; answer: JsonRpcAnswer }> {
    const messages = messagesOf(response.headers.get('content-type') ?? '', await response.text());
    const final = messages.reverse().find((m) => typeof m === 'object' && m !== null && ('result' in m || 'error' in m)) as
        | { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }
        | undefined;
    if (final?.error !== undefined) return { httpStatus: response.status, answer: { kind: 'error', error: final.error } };
    if (final?.result !== undefined) return { httpStatus: response.status, answer: { kind: 'result', result: final.result } };
    throw new Error(`No JSON-RPC answer to ${method} (HTTP ${response.status})`);
}

/** Sends one request (already framed with its `_meta` envelope) over HTTP and returns its JSON-RPC answer. */
export async function postRaw2026(
    url: URL,
    request: { method: string; params?: Record<string, unknown> },
    headers: Record<string, string> = {},
    signal?: AbortSignal
): Promise<{ httpStatus: number; answer: JsonRpcAnswer }> {
    return answerOf(await fetch(raw2026Request(url, request, headers, signal)), request.method);
}

/** `_meta` for a raw 2026 request, with or without the Tasks extension declared. */
export function envelope2026(declareTasks: boolean): Record<string, unknown> {
    return {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_2026,
        'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': declareTasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
    };
}
