import { Agent, request } from 'node:http';

/**
 * A minimal MCP client for benchmarks: one `tools/call` per stateless Streamable HTTP POST, over a
 * keep-alive connection pool, reading the JSON-RPC answer from the SSE or JSON body. Fewer moving
 * parts than the SDK client, so the figures measure the server.
 */
export class McpHttp {
    private readonly agent: Agent;
    private nextId = 1;

    constructor(
        private readonly url: string,
        maxSockets = 16
    ) {
        this.agent = new Agent({ keepAlive: true, maxSockets });
    }

    /** The tool's structuredContent. */
    async callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
        const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params: { name, arguments: args } });
        const text = await this.post(body);
        const line = text.split('\n').find((l) => l.startsWith('data: ')) ?? text;
        const message = JSON.parse(line.startsWith('data: ') ? line.slice(6) : line) as {
            result?: { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown };
            error?: unknown;
        };
        if (message.result?.structuredContent === undefined || message.result.isError === true) {
            throw new Error(`${name} failed: ${text.slice(0, 300)}`);
        }
        return message.result.structuredContent;
    }

    close(): void {
        this.agent.destroy();
    }

    private post(body: string): Promise<string> {
        return new Promise((resolve, reject) => {
            const req = request(this.url, {
                method: 'POST',
                agent: this.agent,
                headers: {
                    'content-type': 'application/json',
                    accept: 'application/json, text/event-stream',
                    'content-length': Buffer.byteLength(body),
                },
            });
            req.on('response', (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (chunk: Buffer) => chunks.push(chunk));
                res.on('end', () => {
                    const text = Buffer.concat(chunks).toString('utf8');
                    if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
                    else resolve(text);
                });
                res.on('error', reject);
            });
            req.on('error', reject);
            req.setTimeout(60_000, () => req.destroy(new Error('MCP call timed out')));
            req.end(body);
        });
    }
}
