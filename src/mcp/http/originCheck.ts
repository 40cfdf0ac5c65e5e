import { normalizeOrigin } from '../../config';

/**
 * Origin and Host validation for /api/mcp (the MCP Streamable HTTP transport: servers MUST validate
 * Origin, against DNS rebinding). A browser names the page that sends a request in `Origin`; clients
 * that are not browsers (the SDKs, VS Code, the Inspector's proxy) send none and are not affected.
 *
 * - A request with an Origin is served only when that origin is the server's own host, one of
 *   ALLOWED_ORIGINS, or, on a loopback server, another loopback origin (the same machine).
 * - On a loopback server (its host name, WEBSITE_HOSTNAME, is localhost or a loopback address), the Host
 *   header must be a loopback name too: a page of attacker.example whose name was rebound to 127.0.0.1
 *   reaches the port with `Host: attacker.example`.
 */

export interface OriginPolicy {
    /**
     * The server's own host (host[:port]), as the platform names it (WEBSITE_HOSTNAME). Unknown, the server
     * is taken to be a loopback one: the strict rules, rather than trusting a Host header anyone can send.
     */
    ownHost: string | undefined;
    /** Normalized origins (lowercase scheme://host[:port]) allowed beyond the server's own. */
    allowedOrigins: readonly string[];
}

/** The host name of `host[:port]` (IPv6 in brackets), lowercase, without a trailing dot. */
function hostnameOf(host: string): string | undefined {
    try {
        return new URL(`http://${host.trim()}`).hostname.toLowerCase().replace(/\.$/, '');
    } catch {
        return undefined;
    }
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (RFC 6761, RFC 5735). */
export function isLoopbackName(hostname: string): boolean {
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
    if (hostname === '[::1]') return true;
    return /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(hostname);
}

export type Refusal = { status: 403; message: string };

export const FOREIGN_ORIGIN =
    'Forbidden: this MCP endpoint does not accept requests from this Origin. Add the origin to the ALLOWED_ORIGINS setting to allow it.';
export const FOREIGN_HOST = 'Forbidden: this MCP endpoint runs on a loopback address and accepts only a loopback Host header.';

/** Undefined when the request may be served; else why not. */
export function checkOrigin(headers: Headers, requestUrl: string, policy: OriginPolicy): Refusal | undefined {
    let requestHost: string;
    try {
        requestHost = new URL(requestUrl).host;
    } catch {
        requestHost = '';
    }
    const hostHeader = headers.get('host') ?? requestHost;
    const ownHost = (policy.ownHost ?? 'localhost').toLowerCase();
    const ownName = hostnameOf(ownHost);
    const loopback = ownName === undefined || isLoopbackName(ownName);

    if (loopback) {
        const name = hostnameOf(hostHeader);
        if (name === undefined || !isLoopbackName(name)) return { status: 403, message: FOREIGN_HOST };
    }

    const origin = headers.get('origin');
    if (origin === null) return undefined;
    // "null" (a sandboxed frame, a file), several origins, or anything that is not one origin.
    const normalized = normalizeOrigin(origin);
    if (normalized === undefined || origin.includes(',')) return { status: 403, message: FOREIGN_ORIGIN };
    if (policy.allowedOrigins.includes(normalized)) return undefined;
    const originUrl = new URL(normalized);
    // Not the Host header: on a server reached by any name, a rebound page's Origin would match it.
    if (originUrl.host === ownHost) return undefined;
    if (loopback && isLoopbackName(originUrl.hostname)) return undefined;
    return { status: 403, message: FOREIGN_ORIGIN };
}

/** The 403 answer, as a JSON-RPC error like the endpoint's other refusals. */
export function forbidden(refusal: Refusal): Response {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null }), {
        status: refusal.status,
        headers: { 'Content-Type': 'application/json' },
    });
}
