/**
 * MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`): the extension's identifier, the MIME type of its HTML views, and
 * whether a client's capabilities declare it. Only such a client is offered the views (the tools' `_meta.ui`, the
 * `ui://` resources, the run facts in answers); every other client gets exactly the answers it got before. How each
 * era learns a request's capabilities: ./sdk/uiSession2025.ts (2025, stateless) and ./era2026/appsExtension.ts.
 * https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx
 */

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The one content type of a view (the extension's `RESOURCE_MIME_TYPE`; test/unit/appsExtension.test.ts holds them equal). */
export const APP_HTML_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * Whether client capabilities (`{ extensions: { [UI_EXTENSION]: { mimeTypes } } }`) declare the extension for HTML
 * views: the extension's text makes `mimeTypes` required, and a host that lists other types only cannot show these.
 */
export function declaresUi(capabilities: unknown): boolean {
    if (typeof capabilities !== 'object' || capabilities === null) return false;
    const extensions = (capabilities as { extensions?: unknown }).extensions;
    if (typeof extensions !== 'object' || extensions === null) return false;
    const settings = (extensions as Record<string, unknown>)[UI_EXTENSION];
    if (typeof settings !== 'object' || settings === null) return false;
    const mimeTypes = (settings as { mimeTypes?: unknown }).mimeTypes;
    return Array.isArray(mimeTypes) && mimeTypes.slice(0, 32).includes(APP_HTML_MIME_TYPE);
}
