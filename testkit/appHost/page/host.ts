import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/**
 * The test host page (browser code, bundled by ../appHost.ts): embeds one job's view as an MCP Apps host does, in a
 * sandboxed frame of its own opaque origin, under the CSP the host builds from the resource's `_meta.ui.csp` (the
 * spec's construction, SEP-1865 "Content Security Policy Enforcement"), connected by the extension's own host bridge.
 * The view's tool calls go to `window.mcpCallTool`, which the test exposes from Node: a real MCP client of the running
 * local host.
 */

interface Csp {
    connectDomains?: string[];
    resourceDomains?: string[];
}

export interface OpenView {
    html: string;
    csp?: Csp;
    toolName: string;
    toolInput: Record<string, unknown>;
    toolResult: Record<string, unknown>;
}

declare global {
    interface Window {
        mcpCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
        openView(view: OpenView): Promise<void>;
        closeView(): Promise<void>;
    }
}

function cspOf(csp: Csp | undefined): string {
    const resources = (csp?.resourceDomains ?? []).join(' ');
    const connect = (csp?.connectDomains ?? []).join(' ');
    return [
        "default-src 'none'",
        `script-src 'unsafe-inline' ${resources}`,
        `style-src 'unsafe-inline' ${resources}`,
        `connect-src ${connect || "'none'"}`,
        `img-src data: ${resources}`,
        `font-src ${resources || "'none'"}`,
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'none'",
    ].join('; ');
}

/** The view's HTML with the host's policy first in its head (a second policy can only narrow what the first allows). */
function withPolicy(html: string, csp: Csp | undefined): string {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${cspOf(csp)}">`;
    return html.replace(/<head>/i, `<head>${meta}`);
}

let current: { bridge: AppBridge; frame: HTMLIFrameElement } | undefined;

window.openView = async ({ html, csp, toolName, toolInput, toolResult }) => {
    await window.closeView();
    const frame = document.createElement('iframe');
    frame.id = 'view';
    // Scripts only: an opaque origin, no access to this page, no forms, no popups.
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.style.cssText = 'width: 720px; height: 200px; border: 1px solid #ccc; border-radius: 8px;';
    document.body.append(frame);
    const target = frame.contentWindow;
    if (target === null) throw new Error('the frame has no window');
    const bridge = new AppBridge(
        null,
        { name: 'view-test-host', version: '1.0.0' },
        { serverTools: {}, logging: {} },
        { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', toolInfo: { tool: { name: toolName, inputSchema: { type: 'object' } } } } }
    );
    bridge.oncalltool = async (params) => (await window.mcpCallTool(params)) as never;
    bridge.onsizechange = ({ height }) => {
        if (height !== undefined) frame.style.height = `${Math.ceil(height) + 2}px`;
    };
    bridge.oninitialized = () => {
        void bridge.sendToolInput({ arguments: toolInput }).then(() => bridge.sendToolResult(toolResult as never));
    };
    await bridge.connect(new PostMessageTransport(target, target));
    current = { bridge, frame };
    frame.srcdoc = withPolicy(html, csp);
};

window.closeView = async () => {
    if (current === undefined) return;
    const { bridge, frame } = current;
    current = undefined;
    await bridge.teardownResource({ reason: 'closed by the test' }).catch(() => undefined);
    await bridge.close().catch(() => undefined);
    frame.remove();
};
