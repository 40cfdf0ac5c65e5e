/**
 * JSON-RPC errors whose message is said once. The SDK's McpError puts "MCP error <code>: " into its own
 * message, the SDK sends that message as the JSON-RPC error's message, and the client's McpError adds
 * the prefix again: "MCP error -32602: MCP error -32602: ...". An error made here carries the code and
 * the bare text, so a client shows the prefix once.
 */

export interface RpcError extends Error {
    readonly code: number;
}

export function rpcError(code: number, message: string): RpcError {
    return Object.assign(new Error(message), { code });
}

/** The text of a message without the "MCP error <code>: " prefix McpError gave it (repeated ones too). */
export function withoutRepeatedPrefix(message: string): string {
    return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** The code an error carries (McpError and rpcError both have one), if it is a JSON-RPC code. */
export function errorCode(error: unknown): number | undefined {
    if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
    const { code } = error;
    return typeof code === 'number' && Number.isSafeInteger(code) ? code : undefined;
}
