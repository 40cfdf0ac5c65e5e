import type { RpcHttpCookie } from '../worker/coreTypes';

/**
 * An RpcHttpCookie as the Functions host writes it: GrpcMessageExtensionUtilities turns it into ASP.NET
 * CookieOptions (whose Path defaults to "/"; sameSite 'none' means "unspecified" and 'explicitNone' means
 * SameSite=None), then ResponseCookies.Append escapes the value with Uri.EscapeDataString and
 * SetCookieHeaderValue prints the attributes in this order, lower-case.
 */
export function toSetCookie(cookie: RpcHttpCookie): string {
    const parts = [`${cookie.name ?? ''}=${escapeDataString(cookie.value ?? '')}`];
    const seconds = cookie.expires?.value?.seconds;
    if (seconds !== undefined && seconds !== null) {
        parts.push(`expires=${new Date(Number(seconds) * 1000).toUTCString()}`);
    }
    const maxAge = cookie.maxAge?.value;
    if (maxAge !== undefined && maxAge !== null) parts.push(`max-age=${Math.trunc(Number(maxAge))}`);
    const domain = cookie.domain?.value;
    if (domain) parts.push(`domain=${domain}`);
    const path = cookie.path ? cookie.path.value : '/';
    if (path) parts.push(`path=${path}`);
    if (cookie.secure?.value) parts.push('secure');
    const sameSite = sameSiteOf(cookie.sameSite);
    if (sameSite) parts.push(`samesite=${sameSite}`);
    if (cookie.httpOnly?.value) parts.push('httponly');
    return parts.join('; ');
}

function sameSiteOf(value: RpcHttpCookie['sameSite']): string | undefined {
    switch (value) {
        case 'strict':
            return 'strict';
        case 'lax':
            return 'lax';
        case 'explicitNone':
            return 'none';
        default:
            return undefined;
    }
}

/** .NET's Uri.EscapeDataString: everything but the RFC 3986 unreserved characters is percent-encoded. */
export function escapeDataString(text: string): string {
    return encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}
