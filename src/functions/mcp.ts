import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { getConfig } from '../config';
import { callerTenant, isPlatformAuthEnabled } from '../mcp/http/caller';
import { toResponseInit, toWebRequest } from '../mcp/http/functionsHttp';
import { serveMcpRequest } from '../mcp/era2025/endpoint';
import { internalError } from '../mcp/http/errorResponses';
import { checkOrigin, forbidden, type OriginPolicy } from '../mcp/http/originCheck';
import { buildMcpServer } from '../mcp/era2025/server';
import { serveByEra } from '../mcp/http/eraRouter';
import { serveModernRequest } from '../mcp/era2026/endpoint';
import { buildModernServer } from '../mcp/era2026/server';
import type { WorkflowClient } from '../workflow/workflowClient';
import { ManagementApiClient } from '../workflow/managementClient';

/**
 * The MCP endpoint, /api/mcp: stateless Streamable HTTP, with the durable client as an extra input. Each
 * request is served by the 2026-07-28 server or the 2025-era one (src/mcp/http/eraRouter.ts).
 */

// Streamed responses, so SSE (progress, then the result) reaches the client as it is written.
app.setup({ enableHttpStream: true });

// Read at load: a bad setting stops the app at start with a message naming it.
const config = getConfig();
// Set by the platform, not by the app: whether App Service Authentication validates callers.
const platformAuthEnabled = isPlatformAuthEnabled();
/**
 * The app's own host name as the platform gives it: Azure, func start and the local host all set
 * WEBSITE_HOSTNAME (the local host only once it listens, after the app has loaded: so read per request).
 */
function originPolicy(): OriginPolicy {
    return { ownHost: process.env.WEBSITE_HOSTNAME || undefined, allowedOrigins: config.allowedOrigins };
}

const clientInput = df.input.durableClient();
const clients = new Map<string, WorkflowClient>();

/**
 * The durable client for this invocation, over the management API the durable client binding names
 * (its errors carry the HTTP status, which durable-functions' DurableClient does not expose). The
 * binding data is the same for every invocation of the function, so one client is kept per distinct
 * binding data (in practice one per process). It holds no per-request state.
 */
function durableClient(context: InvocationContext): WorkflowClient {
    const binding = context.extraInputs.get(clientInput);
    const key = JSON.stringify(binding ?? null);
    let client = clients.get(key);
    if (client === undefined) {
        client = new ManagementApiClient(binding);
        if (clients.size >= 16) clients.clear();
        clients.set(key, client);
    }
    return client;
}

async function mcpHandler(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
    try {
        const webRequest = toWebRequest(request);
        // Before anything else: a page of another origin (or a rebound host name) gets nothing but the 403.
        const refusal = checkOrigin(webRequest.headers, webRequest.url, originPolicy());
        if (refusal !== undefined) {
            await webRequest.body?.cancel().catch(() => undefined);
            return toResponseInit(forbidden(refusal));
        }
        const tenant = callerTenant(webRequest.headers, platformAuthEnabled);
        const deps = () => ({ client: durableClient(context), config, log: context, tenant });
        const response = await serveByEra(webRequest, {
            legacy: (legacy) => serveMcpRequest(legacy, () => buildMcpServer(deps()), context),
            modern: (modern) => serveModernRequest(modern, () => buildModernServer(deps()), context),
        });
        return toResponseInit(response);
    } catch (error) {
        context.error('MCP endpoint failed', error);
        return toResponseInit(internalError());
    }
}

app.http('mcp', {
    route: 'mcp',
    methods: ['GET', 'POST', 'DELETE'],
    authLevel: 'function',
    extraInputs: [clientInput],
    handler: mcpHandler,
});
