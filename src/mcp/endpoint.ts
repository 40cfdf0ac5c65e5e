import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Config } from '../config';
import type { WorkflowDeps } from '../workflow/workflowDeps';
import { buildMcpServer } from './era2025/server';
import { declaresUiIn } from './era2026/appsExtension';
import { buildModernServer } from './era2026/server';
import { bodyTooLarge, internalError, JSON_HEADERS, jsonRpcError, methodNotAllowed, nestedTooDeep } from './http/errorResponses';
import { checkOrigin, forbidden, type OriginPolicy } from './http/originCheck';
import { MAX_REQUEST_BODY_BYTES, nestsDeeperThan, readBodyWithin } from './http/requestLimits';
import { BATCH_REFUSED, isBatch } from './sdk/invalidParams';
import { Transport2025 } from './sdk/transport2025';
import { hasUiSession, initializeDeclaresUi, uiSessionId } from './sdk/uiSession2025';

/**
 * The MCP endpoint, both protocol eras, over web-standard types (it knows nothing of Azure Functions: a Functions
 * HttpRequest is an IncomingRequest). Stateless: each request is answered from its own body and caller alone.
 *
 * In order, before any MCP work: the Origin/Host check, POST only, the body read once within its limit, its nesting
 * bounded, then parsed once. The era is SDK v2's own classifier's (the one createMcpHandler routes by, so the two
 * never disagree): a request without the 2026 `_meta` envelope claim (`initialize`, a 2025 call, a body that is not
 * JSON) goes to the 2025 server (SDK 1.32), anything else to the 2026-07-28 one (SDK v2). Both SDKs are handed the
 * parsed body beside one bodyless Request, so neither reads or parses it again.
 */

/** The request as the endpoint reads it. */
export interface IncomingRequest {
    method: string;
    url: string;
    headers: Headers;
    body: ReadableStream<Uint8Array> | null;
}

/** Who calls, over which durable client: everything of a request's dependencies but the configuration. */
export type Caller = Omit<WorkflowDeps, 'config'>;

export type McpEndpoint = (request: IncomingRequest, caller: Caller) => Promise<Response>;

export function createMcpEndpoint(config: Config, originPolicy: () => OriginPolicy): McpEndpoint {
    return async (request, caller) => {
        const refusal = checkOrigin(request.headers, request.url, originPolicy());
        if (refusal !== undefined) {
            await request.body?.cancel().catch(() => undefined);
            return forbidden(refusal);
        }
        // GET would open a standalone SSE stream a stateless server never writes to; DELETE has no session to end.
        if (request.method !== 'POST') return methodNotAllowed();
        let text: string;
        try {
            const body = await readBodyWithin(request, MAX_REQUEST_BODY_BYTES);
            if (body.kind === 'tooLarge') return bodyTooLarge();
            text = body.text;
        } catch (error) {
            // The body stream failed (the client went away mid-body): nothing to serve.
            caller.log.warn('Reading the MCP request body failed', error);
            return jsonRpcError(400, -32700, 'Parse error: the request body could not be read.');
        }
        if (nestsDeeperThan(text)) return nestedTooDeep();
        const message = parseOrUndefined(text);
        const web = new Request(request.url, { method: 'POST', headers: request.headers });
        const deps: WorkflowDeps = { ...caller, config };
        // No JSON body (empty or unparseable) is legacy, as the classifier itself answers it (the 2025 transport then says why).
        const legacy = message === undefined || (await isLegacyRequest(web, message, { maxRequestBodySize: MAX_REQUEST_BODY_BYTES }));
        return legacy ? serve2025(web, message, deps) : serve2026(web, message, deps);
    };
}

function parseOrUndefined(text: string): unknown {
    try {
        return text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
        return undefined;
    }
}

/** Whether the 2025 transport would get past its Accept and Content-Type checks (only then is a batch refused here). */
function headersLookRight(headers: Headers): boolean {
    const accept = headers.get('accept') ?? '';
    const type = (headers.get('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase();
    return accept.includes('application/json') && accept.includes('text/event-stream') && type === 'application/json';
}

/**
 * One 2025-era request: a fresh server and transport (SDK 1.32 refuses to reuse a stateless transport), in SSE mode
 * so that progress reaches the client on the response stream. Nothing of it outlives the answer, so it needs no
 * closing. A client that goes away mid-wait is not seen: the Functions library reads the response to its end
 * whatever the client does (it iterates the body, src/http/httpProxy.ts of azure-functions-nodejs-library 4.x), so
 * a wait runs to its budget, bounded; notifications/cancelled does end it early.
 */
async function serve2025(web: Request, message: unknown, deps: WorkflowDeps): Promise<Response> {
    const { log } = deps;
    if (isBatch(message) && headersLookRight(web.headers)) return new Response(JSON.stringify(BATCH_REFUSED), { status: 400, headers: JSON_HEADERS });
    // MCP Apps: declared at this initialize, or at the client's initialize whose session id it echoes (./sdk/uiSession2025.ts).
    const declaring = initializeDeclaresUi(message);
    const server = buildMcpServer(deps, declaring || hasUiSession(web.headers));
    const transport = new Transport2025(message, MAX_REQUEST_BODY_BYTES, declaring ? uiSessionId : undefined);
    // Protocol errors already reach the client as 4xx JSON-RPC errors; this is for the operator.
    transport.onerror = (error) => log.warn('MCP transport error', error);
    try {
        await server.connect(transport);
        return await transport.handleRequest(web, { parsedBody: message });
    } catch (error) {
        log.error('MCP request failed', error);
        await server.close().catch(() => undefined);
        return internalError();
    }
}

/** One 2026-07-28 request, by SDK v2's handler (2025-era traffic refused: it was routed above). */
function serve2026(web: Request, message: unknown, deps: WorkflowDeps): Promise<Response> {
    const ui = declaresUiIn(message);
    const handler = createMcpHandler(() => buildModernServer(deps, ui), {
        legacy: 'reject',
        // JSON unless the call sends progress first, then SSE.
        responseMode: 'auto',
        maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
        // Rejected requests already reach the client as JSON-RPC errors; this is for the operator.
        onerror: (error) => deps.log.warn('MCP (2026-07-28) request error', error),
    });
    return handler.fetch(web, { parsedBody: message });
}
