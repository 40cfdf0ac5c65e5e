import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How the smoke check reaches the app: the MCP endpoint and the credentials a deployed app asks for. */
export interface Target {
    url: URL;
    /** The function key, sent as x-functions-key (the `mcp` function is authLevel function). */
    functionKey?: string;
    /** An Entra access token for App Service Authentication, sent as a bearer token. */
    bearerToken?: string;
    /** How long to keep retrying the first connection (a cold start, or a deployment still syncing). */
    waitReadySeconds: number;
}

/** One tool call's answer, as a model would read it, and how long it took. */
export interface ToolAnswer {
    isError: boolean;
    /** structuredContent, or the text parsed as JSON when a result has none. */
    data: Record<string, unknown>;
    text: string;
    ms: number;
}

/** Longer than any inline wait the app allows (WAIT_BUDGET_SECONDS is at most 225 s), shorter than Azure's 230 s. */
const CALL_TIMEOUT_MS = 228_000;

export class McpSession {
    private constructor(private readonly client: Client) {}

    /** Connects (MCP initialize), retrying while the app is not ready yet; a refused credential fails at once. */
    static async open(target: Target): Promise<{ session: McpSession; ms: number }> {
        const headers: Record<string, string> = {};
        if (target.functionKey) headers['x-functions-key'] = target.functionKey;
        if (target.bearerToken) headers['authorization'] = `Bearer ${target.bearerToken}`;
        const deadline = Date.now() + target.waitReadySeconds * 1000;
        for (;;) {
            const client = new Client({ name: 'mcp-mining-smoke', version: '1.0.0' });
            const started = performance.now();
            try {
                await client.connect(new StreamableHTTPClientTransport(target.url, { requestInit: { headers } }));
                return { session: new McpSession(client), ms: performance.now() - started };
            } catch (error) {
                await client.close().catch(() => undefined);
                const message = error instanceof Error ? error.message : String(error);
                // The SDK's StreamableHTTPError carries the HTTP status as `code`.
                const status = (error as { code?: unknown }).code;
                if (status === 401 || status === 403) {
                    throw new Error(`the endpoint answered ${status}: check the function key and, with Entra sign-in, the token (MCP_BEARER_TOKEN)`);
                }
                if (Date.now() >= deadline) throw new Error(`could not connect to ${target.url.href}: ${message}`);
                await new Promise((r) => setTimeout(r, 5000));
            }
        }
    }

    async toolNames(): Promise<string[]> {
        return (await this.client.listTools()).tools.map((t) => t.name);
    }

    async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
        const started = performance.now();
        const result = (await this.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
        const ms = performance.now() - started;
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        let data = result.structuredContent as Record<string, unknown> | undefined;
        if (!data && !result.isError) {
            try {
                data = JSON.parse(text) as Record<string, unknown>;
            } catch {
                data = {};
            }
        }
        return { isError: result.isError === true, data: data ?? {}, text, ms };
    }

    async close(): Promise<void> {
        await this.client.close();
    }
}
