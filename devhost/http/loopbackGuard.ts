import type { IncomingHttpHeaders } from 'node:http';

/**
 * The host's own rule for the routes it serves itself (the Durable management webhooks, /admin, the home
 * page) and its loopback endpoints: browsers' pages of other sites get nothing from them.
 * - DNS rebinding: a page of attacker.example whose name was rebound to 127.0.0.1 reaches a loopback port
 *   with `Host: attacker.example`; on a loopback listener only a loopback Host is served.
 * - Cross-site requests: a `text/plain` POST is "simple" and skips the CORS preflight, so the browser
 *   sends it and only hides the answer; a foreign `Origin`, `Origin: null` or `Sec-Fetch-Site: cross-site`
 *   is refused before anything runs.
 *   https://fetch.spec.whatwg.org/#cors-safelisted-request-header, https://w3c.github.io/webappsec-fetch-metadata/
 * Clients that are not browsers (durable-functions' client, curl, the tests) send no Origin and are served.
 * The app's function routes are the app's to guard (src/ checks Origin and Host on /api/mcp), as on Azure.
 */

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (RFC 6761, RFC 5735). */
export function isLoopbackName(hostname: string): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return true;
    if (name === '[::1]' || name === '::1') return true;
    return /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name);
}

/** The host name of `host[:port]` (IPv6 in brackets), or undefined when it is not one. */
function hostnameOf(host: string): string | undefined {
    try {
        return new URL(`http://${host.trim()}`).hostname.toLowerCase().replace(/\.$/, '');
    } catch {
        return undefined;
    }
}

/** One header's single value; a repeated header is not one value. */
function single(value: string | string[] | undefined): string | undefined {
    return Array.isArray(value) ? (value.length === 1 ? value[0] : '') : value;
}

export const FOREIGN_HOST = 'Forbidden: this host listens on a loopback address and serves its own routes only to a loopback Host header.';
export const FOREIGN_ORIGIN = "Forbidden: this host's own routes do not serve pages of other origins.";

/**
 * Why a request to one of the host's own routes is refused, or undefined when it may be served.
 * `listensOnLoopback`: the connection came in on a loopback address (the default listener, 127.0.0.1, or
 * 127.0.0.1 of a listener on every interface: where a rebound name leads).
 */
export function foreignRequestRefusal(headers: IncomingHttpHeaders, listensOnLoopback: boolean): string | undefined {
    const host = single(headers.host) ?? '';
    const hostName = hostnameOf(host);
    if (listensOnLoopback && (hostName === undefined || !isLoopbackName(hostName))) return FOREIGN_HOST;

    if (single(headers['sec-fetch-site'])?.toLowerCase() === 'cross-site') return FOREIGN_ORIGIN;
    const origin = single(headers.origin);
    if (origin === undefined) return undefined;
    let originUrl: URL;
    try {
        originUrl = new URL(origin);
    } catch {
        return FOREIGN_ORIGIN;
    }
    // "null" (a sandboxed frame, a file) parses to no origin; an origin has no path, query or credentials.
    if (originUrl.origin === 'null' || origin.replace(/\/$/, '').toLowerCase() !== originUrl.origin) return FOREIGN_ORIGIN;
    if (isLoopbackName(originUrl.hostname)) return undefined;
    // On another interface: the page the host itself served, and no other.
    if (!listensOnLoopback && originUrl.host === host.toLowerCase()) return undefined;
    return FOREIGN_ORIGIN;
}

/** True for a socket's local address that only this machine reaches (IPv4 loopback as IPv6-mapped too). */
export function isLoopbackAddress(address: string | undefined): boolean {
    if (address === undefined) return false;
    return isLoopbackName(address.replace(/^::ffff:/i, ''));
}
