import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const FUNCTION_KEY_HEADER = 'x-functions-key';
export const FUNCTION_KEY_QUERY = 'code';

/**
 * The key a request presents, as the host's AuthenticationLevelHandler reads it: the `x-functions-key` header
 * when present (even if wrong), otherwise the `code` query parameter; the first value of either.
 */
export function presentedKey(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
    const header = headers[FUNCTION_KEY_HEADER];
    if (header !== undefined) return Array.isArray(header) ? header[0] : header.split(',')[0]?.trim();
    return query.get(FUNCTION_KEY_QUERY) ?? undefined;
}

/**
 * Whether a request may run a function of this `authLevel`. Keys are off unless one is configured (as with
 * `func start`); anonymous functions never need one. This host has a single key, which stands for the function,
 * host and master keys at once, so it also opens `admin` functions.
 */
export function isAuthorized(authLevel: string, configuredKey: string | undefined, presented: string | undefined): boolean {
    if (configuredKey === undefined || authLevel.toLowerCase() === 'anonymous') return true;
    if (presented === undefined || presented.length === 0) return false;
    // Hashing first gives equal lengths, so the comparison takes the same time whatever the guess.
    const digest = (text: string) => createHash('sha256').update(text).digest();
    return timingSafeEqual(digest(presented), digest(configuredKey));
}
