import { isLegacyRequest } from '@modelcontextprotocol/server';
import { MAX_REQUEST_BODY_BYTES } from './requestLimits';

/**
 * One endpoint, two protocol eras: each request goes to the 2026-07-28 server or to the 2025-era one by
 * SDK v2's own classifier (the one createMcpHandler routes by), so the two can never disagree. Legacy
 * is a request without the 2026 `_meta` envelope claim: `initialize`, a 2025 call, a GET or DELETE.
 * The request stays readable for the server it goes to (the classifier reads a clone).
 */
export async function serveByEra(
    request: Request,
    servers: { legacy: (request: Request) => Promise<Response>; modern: (request: Request) => Promise<Response> }
): Promise<Response> {
    const legacy = await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_REQUEST_BODY_BYTES });
    return legacy ? servers.legacy(request) : servers.modern(request);
}
