/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: JSON-RPC errors whose message is said once. SDK 1.32's McpError puts
 * "MCP error <code>: " into its own message, the SDK sends that message as the JSON-RPC error's message, and the
 * client's McpError adds the prefix again: "MCP error -32602: MCP error -32602: ...". Errors the app makes carry
 * the code and the bare text (rpcError); the SDK's own (tasks/get, resources/read, ...) lose the prefix on the way
 * out (./transport2025.ts). Canary: test/unit/sdkSeams.test.ts.
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

/** An error's text as a client should see it. */
export function messageOf(error: unknown): string {
    return withoutRepeatedPrefix(error instanceof Error ? error.message : String(error));
}
