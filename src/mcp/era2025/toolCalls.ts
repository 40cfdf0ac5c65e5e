import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getParseErrorMessage, safeParseAsync } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { CallToolRequestSchema, ErrorCode, type CallToolResult, type CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExtra } from './toolExtra';
import { resultForClient } from './protocolVersion';
import { errorCode, rpcError, withoutRepeatedPrefix } from './rpcError';
import { toolError } from '../toolResults';
import { argumentErrors } from '../tools/argumentErrors';

/**
 * The server's tools/call handler, installed with the Server's public setRequestHandler over the one
 * McpServer installs (which stays in charge of tools/list). It runs the tools McpServer registered, by
 * the handler each RegisteredTool carries, and differs from McpServer's own in what the 2025 spec asks:
 *
 * - an unknown tool is a JSON-RPC error (-32602), not an isError result;
 * - a plain call of a task tool runs that tool's own plain handler (a start tool's budgeted wait)
 *   instead of SDK 1.32's automatic task polling, which waits without a bound;
 * - a task-augmented call that cannot create a task (invalid arguments, a reused key, a bad ttl, a cap's
 *   refusal, a tool without task support) is a JSON-RPC error with the tool's own message, where SDK 1.32
 *   answers -32602 "Invalid task creation result" with a zod dump of the isError result;
 * - a result for a client whose protocol version predates resource_link goes without those items;
 * - every message is said once (rpcError.ts).
 *
 * Plain calls keep the SDK's other rules: invalid arguments and a throwing handler are isError results
 * (the model can correct itself), and structuredContent is checked against the tool's outputSchema.
 */

export type PlainToolHandler = (args: unknown, extra: ToolExtra) => Promise<CallToolResult>;

export interface CallableTool {
    /** As McpServer registered it (registerTool or registerToolTask). */
    readonly registered: RegisteredTool;
    /** For a task tool: what answers a call that asks for no task. */
    readonly plainCall?: PlainToolHandler;
}

type ToolCallback = (args: unknown, extra: ToolExtra) => CallToolResult | Promise<CallToolResult>;
type CreateTask = (args: unknown, extra: CreateTaskRequestHandlerExtra) => CreateTaskResult | Promise<CreateTaskResult>;

/** The handlers a RegisteredTool holds: a callback (registerTool) or a task handler (registerToolTask). */
function handlersOf(tool: CallableTool): { plain?: ToolCallback; createTask?: CreateTask } {
    const handler: unknown = tool.registered.handler;
    if (typeof handler === 'function') return { plain: handler as ToolCallback };
    const createTask = typeof handler === 'object' && handler !== null && 'createTask' in handler ? handler.createTask : undefined;
    const taskSupport = tool.registered.execution?.taskSupport;
    return {
        ...(tool.plainCall === undefined ? {} : { plain: tool.plainCall }),
        ...(typeof createTask === 'function' && (taskSupport === 'optional' || taskSupport === 'required')
            ? { createTask: createTask as CreateTask }
            : {}),
    };
}

function messageOf(error: unknown): string {
    return withoutRepeatedPrefix(error instanceof Error ? error.message : String(error));
}

async function parseArguments(tool: RegisteredTool, args: unknown): Promise<{ args: unknown } | { error: string }> {
    if (tool.inputSchema === undefined) return { args: undefined };
    const parsed = await safeParseAsync(tool.inputSchema, args ?? {});
    if (parsed.success) return { args: parsed.data };
    return { error: argumentErrors(parsed.error) ?? getParseErrorMessage(parsed.error) };
}

/** McpServer's output rule: a result that is not an error carries structuredContent that fits the outputSchema. */
async function outputError(name: string, tool: RegisteredTool, result: CallToolResult): Promise<string | undefined> {
    if (tool.outputSchema === undefined || result.isError === true) return undefined;
    if (result.structuredContent === undefined) {
        return `Output validation error: Tool ${name} has an output schema but no structured content was provided`;
    }
    const parsed = await safeParseAsync(tool.outputSchema, result.structuredContent);
    if (parsed.success) return undefined;
    return `Output validation error: Invalid structured content for tool ${name}: ${getParseErrorMessage(parsed.error)}`;
}

async function plainCall(name: string, tool: CallableTool, plain: ToolCallback, rawArgs: unknown, extra: ToolExtra): Promise<CallToolResult> {
    const parsed = await parseArguments(tool.registered, rawArgs);
    if ('error' in parsed) return toolError(parsed.error) as CallToolResult;
    let result: CallToolResult;
    try {
        result = await plain(parsed.args, extra);
    } catch (error) {
        return toolError(messageOf(error)) as CallToolResult;
    }
    const invalid = await outputError(name, tool.registered, result);
    return invalid === undefined ? resultForClient(result, extra) : (toolError(invalid) as CallToolResult);
}

async function taskCall(name: string, tool: CallableTool, createTask: CreateTask, rawArgs: unknown, extra: ToolExtra): Promise<CreateTaskResult> {
    const parsed = await parseArguments(tool.registered, rawArgs);
    if ('error' in parsed) throw rpcError(ErrorCode.InvalidParams, parsed.error);
    const { taskStore } = extra;
    if (taskStore === undefined) throw rpcError(ErrorCode.InternalError, `Tool ${name} cannot create tasks on this server`);
    try {
        return await createTask(parsed.args, { ...extra, taskStore });
    } catch (error) {
        // What the tool refused with (a reused key, a cap, a bad ttl) is said to the user as the tool said it.
        throw rpcError(errorCode(error) ?? ErrorCode.InvalidParams, messageOf(error));
    }
}

/** Installs the tools/call handler for these tools; call it once every tool is registered. */
export function answerToolCalls(server: McpServer, tools: ReadonlyMap<string, CallableTool>): void {
    server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const { name, arguments: args, task } = request.params;
        const tool = tools.get(name);
        if (tool === undefined || !tool.registered.enabled) throw rpcError(ErrorCode.InvalidParams, `Tool ${name} not found`);
        const { plain, createTask } = handlersOf(tool);
        if (task !== undefined) {
            // The 2025-11-25 tasks spec: a task asked of a tool that does not support them is -32601.
            if (createTask === undefined) {
                throw rpcError(ErrorCode.MethodNotFound, `Tool ${name} does not support tasks: call it without "task"`);
            }
            return taskCall(name, tool, createTask, args, extra);
        }
        if (plain === undefined) throw rpcError(ErrorCode.MethodNotFound, `Tool ${name} must be called as a task`);
        return plainCall(name, tool, plain, args, extra);
    });
}
