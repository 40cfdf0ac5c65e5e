import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { declaresUi } from '../uiExtension';

/**
 * Whether a 2026-07-28 request's client declared MCP Apps (../uiExtension.ts). A 2026 client declares its
 * capabilities on every request, in the `_meta` envelope, as for the Tasks extension (./tasksExtension.ts reads the
 * same key from the handler's context). Read here from the body the endpoint has already parsed, because the answer
 * to tools/list and resources/list depends on it, and McpServer lists what was registered before any handler runs.
 */
export function declaresUiIn(message: unknown): boolean {
    if (typeof message !== 'object' || message === null) return false;
    const params = (message as { params?: unknown }).params;
    if (typeof params !== 'object' || params === null) return false;
    const meta = (params as { _meta?: unknown })._meta;
    if (typeof meta !== 'object' || meta === null) return false;
    return declaresUi((meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY]);
}
