import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { getConfig } from '../config';
import { toResponseInit, toWebRequest } from '../mcp/functionsHttp';
import { internalError, serveMcpRequest } from '../mcp/httpEndpoint';
import { buildMcpServer } from '../mcp/server';

/** The MCP endpoint, /api/mcp: stateless Streamable HTTP, with the durable client as an extra input. */

// Streamed responses, so SSE (progress, then the result) reaches the client as it is written.
app.setup({ enableHttpStream: true });

// Read at load: a bad setting stops the app at start with a message naming it.
const config = getConfig();

export async function mcpHandler(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
    try {
        const buildServer = () => buildMcpServer({ client: df.getClient(context), config, log: context });
        return toResponseInit(await serveMcpRequest(toWebRequest(request), buildServer, context));
    } catch (error) {
        context.error('MCP endpoint failed', error);
        return toResponseInit(internalError());
    }
}

app.http('mcp', {
    route: 'mcp',
    methods: ['GET', 'POST', 'DELETE'],
    authLevel: 'function',
    extraInputs: [df.input.durableClient()],
    handler: mcpHandler,
});
