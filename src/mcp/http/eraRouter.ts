import { isLegacyRequest } from '@modelcontextprotocol/server';
import { bodyTooLarge, jsonRpcError } from './errorResponses';
import { MAX_REQUEST_BODY_BYTES, readBodyWithin } from './requestLimits';

/**
 * One endpoint, two protocol eras: each request goes to the 2026-07-28 server or to the 2025-era one by
 * SDK v2's own classifier (the one createMcpHandler routes by), so the two can never disagree. Legacy
 * is a request without the 2026 `_meta` envelope claim: `initialize`, a 2025 call, a GET or DELETE.
 *
 * The body is read here once, within the limit, and the classifier is given it parsed: left to itself it
 * reads a tee'd clone, and a tee's branch cancelled over the limit waits for the other branch to be
 * cancelled too (https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee), so an oversized
 * chunked body would never be answered. Whichever server serves it gets the body as text.
 */
export async function serveByEra(
    request: Request,
    servers: { legacy: (request: Request) => Promise<Response>; modern: (request: Request) => Promise<Response> }
): Promise<Response> {
    if (request.method !== 'POST') {
        return (await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_REQUEST_BODY_BYTES })) ? servers.legacy(request) : servers.modern(request);
    }
    let text: string;
    try {
        const body = await readBodyWithin(request, MAX_REQUEST_BODY_BYTES);
        if (body.kind === 'tooLarge') return bodyTooLarge();
        text = body.text;
    } catch {
        // The body stream failed (the client went away mid-body): nothing to serve.
        return jsonRpcError(400, -32700, 'Parse error: the request body could not be read.');
    }
    const headers = new Headers(request.headers);
    // The text may differ in byte length from what arrived (invalid UTF-8 becomes U+FFFD): drop the old length.
    headers.delete('content-length');
    const copy = () => new Request(request.url, { method: request.method, headers, body: text });
    const parsed = parseOrUndefined(text);
    // No JSON body (empty or unparseable) is legacy, as the classifier itself answers it (the 2025 transport then says why).
    const legacy = parsed === undefined || (await isLegacyRequest(copy(), parsed, { maxRequestBodySize: MAX_REQUEST_BODY_BYTES }));
    return legacy ? servers.legacy(copy()) : servers.modern(copy());
}

function parseOrUndefined(text: string): unknown {
    try {
        return text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
        return undefined;
    }
}
