import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { getConfig } from '../config';
import { createMcpEndpoint } from '../mcp/endpoint';
import { callerTenant, isPlatformAuthEnabled, mcpAuthLevel } from '../mcp/http/caller';
import { internalError } from '../mcp/http/errorResponses';
import type { WorkflowClient } from '../workflow/workflowClient';
import { ManagementApiClient } from '../workflow/managementClient';

/**
 * The MCP endpoint, /api/mcp: stateless Streamable HTTP, both protocol eras (src/mcp/endpoint.ts), with the
 * durable client as an extra input.
 */

// Streamed responses, so SSE (progress, then the result) reaches the client as it is written.
app.setup({ enableHttpStream: true });

// Read at load: a bad setting stops the app at start with a message naming it.
const config = getConfig();
// Set by the platform, not by the app: whether App Service Authentication validates callers.
const platformAuthEnabled = isPlatformAuthEnabled();

/**
 * The app's own host name as the platform gives it: Azure, func start and the local host all set WEBSITE_HOSTNAME
 * (the local host only once it listens, after the app has loaded: so read per request).
 */
const endpoint = createMcpEndpoint(config, () => ({ ownHost: process.env.WEBSITE_HOSTNAME || undefined, allowedOrigins: config.allowedOrigins }));

const clientInput = df.input.durableClient();
const clients = new Map<string, WorkflowClient>();

/**
 * The durable client for this invocation, over the management API the durable client binding names (its errors
 * carry the HTTP status, which durable-functions' DurableClient does not expose). The binding data is the same for
 * every invocation of the function, so one client is kept per distinct binding data (in practice one per process).
 * It holds no per-request state.
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
        const tenant = callerTenant(request.headers, platformAuthEnabled);
        // The Functions body is a node:stream/web ReadableStream, the web one; a streamed response stays streamed.
        const response = await endpoint(request as HttpRequest & { body: ReadableStream<Uint8Array> | null }, { client: durableClient(context), log: context, tenant });
        return { status: response.status, headers: response.headers, body: response.body };
    } catch (error) {
        context.error('MCP endpoint failed', error);
        const response = internalError();
        return { status: response.status, headers: response.headers, body: response.body };
    }
}

app.http('mcp', {
    route: 'mcp',
    methods: ['GET', 'POST', 'DELETE'],
    // A function key, unless App Service Authentication requires a sign-in on every request and the deployment says a
    // valid token is enough (docs/security.md, "Who may call").
    authLevel: mcpAuthLevel(config.functionKeyRequired, platformAuthEnabled),
    extraInputs: [clientInput],
    handler: mcpHandler,
});
