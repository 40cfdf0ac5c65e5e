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

    /** The raw answer (SSE or JSON) to one request. */
    request(method: string, params: Record<string, unknown>): Promise<string> {
        return this.post(JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }));
    }

    /** The tool's structuredContent. */
    async callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
        const text = await this.request('tools/call', { name, arguments: args });
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

    /**
     * A keep-alive socket can be closed by the server just as it is reused (its idle timeout); the
     * request then never reached the server, so it is sent once more, as Node's documentation advises.
     */
    private async post(body: string): Promise<string> {
        try {
            return await this.postOnce(body);
        } catch (error) {
            if (error instanceof ReusedSocketError) return this.postOnce(body);
            throw error;
        }
    }

    private postOnce(body: string): Promise<string> {
        return new Promise((resolve, reject) => {
            const req = request(this.url, {
                method: 'POST',
                agent: this.agent,
                headers: {
                    'content-type': 'application/json',
                    accept: 'application/json, text/event-stream',
                    'mcp-protocol-version': '2025-11-25',
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
            req.on('error', (error: NodeJS.ErrnoException) => {
                reject(req.reusedSocket && error.code === 'ECONNRESET' ? new ReusedSocketError(error.message) : error);
            });
            req.setTimeout(60_000, () => req.destroy(new Error('MCP call timed out')));
            req.end(body);
        });
    }
}

class ReusedSocketError extends Error {
    override name = 'ReusedSocketError';
}
