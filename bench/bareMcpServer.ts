/**
 * The reference for tool-call throughput: the MCP SDK's own stateless Streamable HTTP server, written as the SDK
 * advises (a fresh McpServer and transport per request, one JSON Schema validator for the process, the zod schemas
 * built once), serving the app's three mining tools with their names, descriptions and schemas, and answering from
 * memory: get_mining_result the completed status of the one known workflow or not_found, start_mining that workflow
 * as completed, both shaped by the app's own statusResult.
 *
 * `bareHandler` is the in-process reference (web Request in, Response out); run as a script it serves the same on
 * plain node:http with the SDK's Node transport, for bench/throughput.ts: prints `listening <port>`, and exits when
 * its parent goes (stdin closes) or on SIGTERM.
 *
 * With `--behind-proxy` the same process also runs a plain node:http forward proxy in front of it (a keep-alive
 * agent, headers and body streamed through, as a careful user of node:http writes one) and listens on the proxy: the
 * cost of one HTTP hop alone, which the app on the local host pays as on Azure (front door, then the library's server).
 *
 *   node dist/bench/bareMcpServer.js <completed status JSON file> [--behind-proxy]
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { catalogFor } from '../src/mcp/catalog';
import { notFound, type JobStatus } from '../src/mcp/statusObjects';
import { statusResult } from '../src/mcp/toolResults';
import { parseConfig } from '../src/config';
import { MINING } from '../src/jobs/mining/job';

// The app's default settings, so both servers list the same tools and shape the answers alike.
const CONFIG = parseConfig({ TASKHUB_NAME: 'bench' });
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** A server factory over one completed workflow's status. */
export function bareServerFactory(completed: JobStatus & { workflow_id: string }): () => McpServer {
    const tools = catalogFor(CONFIG).tools.map(({ definition }) => definition);
    const answer = (status: JobStatus) => statusResult(MINING, status, CONFIG.maxResultChars) as { content: never[] };
    const handlers: Record<string, (args: Record<string, unknown>) => { content: never[] }> = {
        start_mining: () => answer(completed),
        get_mining_result: ({ workflow_id }) => answer(workflow_id === completed.workflow_id ? completed : notFound(MINING, String(workflow_id))),
        cancel_mining: () => answer(completed),
    };
    return () => {
        const server = new McpServer({ name: 'bare', version: '1.0.0' }, { jsonSchemaValidator });
        for (const { name, title, description, inputSchema, outputSchema, annotations } of tools) {
            const handler = handlers[name] ?? (() => answer(completed));
            server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, async (args) => handler(args as Record<string, unknown>));
        }
        return server;
    };
}

/** The bare server in process: one request, one fresh server and transport. */
export function bareHandler(completed: JobStatus & { workflow_id: string }): (request: Request) => Promise<Response> {
    const build = bareServerFactory(completed);
    return async (request) => {
        const server = build();
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server.connect(transport);
        return transport.handleRequest(request);
    };
}

if (require.main === module) {
    const build = bareServerFactory(JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as JobStatus & { workflow_id: string });
    const http = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
            void (async () => {
                const server = build();
                const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
                res.on('close', () => {
                    void transport.close();
                    void server.close();
                });
                try {
                    await server.connect(transport);
                    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
                } catch {
                    if (!res.headersSent) res.writeHead(500).end();
                }
            })();
        });
    });
    const portOf = (server: Server) => {
        const address = server.address();
        return typeof address === 'object' && address !== null ? address.port : 0;
    };
    http.listen(0, '127.0.0.1', () => {
        if (!process.argv.includes('--behind-proxy')) {
            process.stdout.write(`listening ${portOf(http)}\n`);
            return;
        }
        const agent = new Agent({ keepAlive: true });
        const proxy = createServer((req, res) => {
            const forwarded = httpRequest({ host: '127.0.0.1', port: portOf(http), method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                answer.pipe(res);
            });
            forwarded.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
            req.pipe(forwarded);
        });
        proxy.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${portOf(proxy)}\n`));
    });
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
    process.on('SIGTERM', () => process.exit(0));
}
