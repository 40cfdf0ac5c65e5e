import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Seam, @modelcontextprotocol/sdk 1.11 clients (2025-03-26): an SDK 1.11 client rejects a whole tool result
 * that holds a `resource_link` item (content types it does not know fail its schema), so a 2025-era result
 * goes without them to a client whose protocol version predates them. Canary: test/unit/sdkSeams.test.ts.
 *
 * The protocol version a request was made under, and what that version allows in a tool result.
 *
 * Over Streamable HTTP every request after initialize carries the negotiated version in its
 * MCP-Protocol-Version header, which the SDK hands each handler as extra.requestInfo.headers. A request
 * without the header is 2025-03-26, as the transport spec says (an SDK 1.11 client never sends it). A
 * request with no requestInfo at all came over a transport without HTTP (stdio, in-memory), where the
 * version was negotiated once at initialize: such a client speaks the SDK's current version.
 */

/** The version a request without an MCP-Protocol-Version header is taken to speak. */
const HEADERLESS_PROTOCOL_VERSION = '2025-03-26';

/** The first protocol version with `resource_link` content items. */
const RESOURCE_LINKS_SINCE = '2025-06-18';

/** What SDK 1.32 hands a handler of the request's HTTP headers. */
interface RequestHeaders {
    requestInfo?: { headers: Record<string, string | string[] | undefined> };
}

/** The request's protocol version, or undefined when it came over a transport without HTTP headers. */
export function requestProtocolVersion(extra: RequestHeaders): string | undefined {
    const headers = extra.requestInfo?.headers;
    if (headers === undefined) return undefined;
    const value = headers['mcp-protocol-version'];
    const version = Array.isArray(value) ? value[0] : value;
    return version === undefined || version === '' ? HEADERLESS_PROTOCOL_VERSION : version;
}

/** Whether the request's client knows `resource_link` content (versions are dates: they compare as strings). */
export function resourceLinksAllowed(extra: RequestHeaders): boolean {
    const version = requestProtocolVersion(extra);
    return version === undefined || version >= RESOURCE_LINKS_SINCE;
}

/**
 * The result as the request's client can take it: without `resource_link` items for a version that
 * predates them (an SDK 1.11 client rejects a whole result that holds one). The text and the
 * structuredContent say the same, and the workflow resource stays readable by its URI.
 */
export function resultForClient(result: { content: ReadonlyArray<{ type: string }> }, extra: RequestHeaders): CallToolResult {
    if (resourceLinksAllowed(extra) || !result.content.some((item) => item.type === 'resource_link')) return result as CallToolResult;
    return { ...result, content: result.content.filter((item) => item.type !== 'resource_link') } as CallToolResult;
}
