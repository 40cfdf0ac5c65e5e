/**
 * The reference for tool-call throughput: the MCP SDK's own stateless Streamable HTTP server on plain
 * node:http (a fresh McpServer and transport per request, as the SDK documents for stateless
 * servers), answering a `get_mining_result` with the app's input and output schemas and a fixed
 * status, from memory. Run as its own process by bench/throughput.ts; prints `listening <port>` and
 * exits when its parent goes (stdin closes) or on SIGTERM.
 *
 *   node dist/bench/bareMcpServer.js <status JSON file>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { anyStatusSchema } from '../src/mcp/outputSchemas';
import { statusResult } from '../src/mcp/toolResults';
import { parseConfig } from '../src/config';
import { workflowIdInput } from '../src/mcp/tools/workflowIdInput';
import type { JobStatus } from '../src/mcp/statusObjects';
import { MINING } from '../src/jobs/mining/job';

// The app's default bound, so both servers shape the answer alike.
const { maxResultChars } = parseConfig({ TASKHUB_NAME: 'bench' });
const status = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as JobStatus;

function buildServer(): McpServer {
    const server = new McpServer({ name: 'bare', version: '1.0.0' });
    server.registerTool(
        'get_mining_result',
        { description: 'Reports a fixed status.', inputSchema: workflowIdInput(MINING), outputSchema: anyStatusSchema(MINING) },
        async ({ workflow_id }) => statusResult(MINING, { ...status, workflow_id } as JobStatus, maxResultChars)
    );
    return server;
}

const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
        void (async () => {
            const server = buildServer();
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
http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
