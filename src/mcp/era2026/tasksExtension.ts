import type { ServerContext } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';

/**
 * The MCP Tasks extension of the 2026-07-28 revision (SEP-2663): its identifier, and whether the client
 * of one request declared it (2026-era clients declare their capabilities on every request, in the
 * `_meta` envelope; nothing is remembered between requests).
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export function clientDeclaresTasks(ctx: ServerContext): boolean {
    // The SDK's declared type of the envelope is empty; its keys are the reserved _meta keys.
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
    const entry = declared?.extensions?.[TASKS_EXTENSION];
    return typeof entry === 'object' && entry !== null;
}

/** -32021 for a tasks/* request from a client that did not declare the extension. */
export function requireTasksDeclared(ctx: ServerContext): void {
    if (clientDeclaresTasks(ctx)) return;
    throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `This request needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities.`
    );
}
