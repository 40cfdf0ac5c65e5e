import { randomUUID } from 'node:crypto';
import { declaresUi } from '../uiExtension';

/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: how the stateless 2025-era server knows, on every request, that its client
 * declared MCP Apps (../uiExtension.ts). In that era only `initialize` carries the client's capabilities, and no
 * instance keeps anything between requests. So the initialize answer to a client that declared the extension carries
 * an `Mcp-Session-Id` of a form of its own, made by the SDK transport's `sessionIdGenerator` for that one request,
 * and every later request of the client echoes it (Streamable HTTP: a client MUST send the session id it was given).
 * The id is random and says one thing, that its holder declared the extension: no tenant, no state, nothing to look
 * up; a forged one only changes what its own sender is offered. A client that declares nothing gets no session id,
 * as before. What the SDK does that this relies on (canary: test/unit/sdkSeams.test.ts): a stateless transport
 * (`sessionIdGenerator: undefined`) accepts any request whatever its Mcp-Session-Id; one given a generator puts the
 * id in the initialize answer's header; the 1.32 client sends it on every later request.
 */

const PREFIX = 'mcp-apps-';
const FORM = /^mcp-apps-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new session id that says the client declared MCP Apps. */
export function uiSessionId(): string {
    return `${PREFIX}${randomUUID()}`;
}

/** Whether a request comes from a client that declared MCP Apps at initialize (it echoes the id it was given). */
export function hasUiSession(headers: Headers): boolean {
    return FORM.test(headers.get('mcp-session-id') ?? '');
}

/** Whether the message is an `initialize` whose client capabilities declare MCP Apps. */
export function initializeDeclaresUi(message: unknown): boolean {
    if (typeof message !== 'object' || message === null) return false;
    const { method, params } = message as { method?: unknown; params?: { capabilities?: unknown } };
    return method === 'initialize' && declaresUi(params?.capabilities);
}
