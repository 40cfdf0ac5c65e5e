import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExtra } from '../progress';

/**
 * SDK 1.32 answers a plain (not task-augmented) call of a tool registered with taskSupport 'optional'
 * by creating a task and polling it inside the request until it ends (McpServer's private
 * handleAutomaticTaskPolling): no budget, so a long run would outlast every client timeout and the 230 s
 * HTTP limit. DESIGN wants start_mining's plain calls to keep their budgeted wait, so plain calls of the
 * tools named here go to their own handler instead, with the SDK's own input and output validation.
 *
 * This reaches into McpServer internals (there is no public hook); the methods are checked at build time
 * so that an SDK that renames them fails loudly, and the unit and end-to-end tests cover the behaviour.
 */

export type PlainToolHandler = (args: unknown, extra: ToolExtra) => Promise<CallToolResult>;

interface McpServerInternals {
    handleAutomaticTaskPolling(tool: RegisteredTool, request: CallToolRequest, extra: ToolExtra): Promise<CallToolResult>;
    validateToolInput(tool: RegisteredTool, args: unknown, toolName: string): Promise<unknown>;
    validateToolOutput(tool: RegisteredTool, result: CallToolResult, toolName: string): Promise<void>;
}

export function answerPlainCallsWith(server: McpServer, handlers: ReadonlyMap<string, PlainToolHandler>): void {
    const internals = server as unknown as McpServerInternals;
    for (const method of ['handleAutomaticTaskPolling', 'validateToolInput', 'validateToolOutput'] as const) {
        if (typeof internals[method] !== 'function') {
            throw new Error(`The MCP SDK's McpServer has no ${method}: plain calls of task tools cannot keep their own handler`);
        }
    }
    const sdkPolling = internals.handleAutomaticTaskPolling.bind(server);
    internals.handleAutomaticTaskPolling = async (tool, request, extra) => {
        const name = request.params.name;
        const handler = handlers.get(name);
        if (handler === undefined) return sdkPolling(tool, request, extra);
        // Errors thrown here become tool errors (isError: true) in McpServer's tools/call handler, as on its normal path.
        const args = await internals.validateToolInput.call(server, tool, request.params.arguments, name);
        const result = await handler(args, extra);
        await internals.validateToolOutput.call(server, tool, result, name);
        return result;
    };
}
