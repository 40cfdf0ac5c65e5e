import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, type CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { offeredTool, type Catalog, type ServedTool } from '../catalog';
import type { ToolDeps } from '../deps';
import { progressReporter } from '../progress';
import { taskAsStarted, taskOptions, toTask } from '../taskModel';
import { checkArguments } from '../tools/argumentErrors';
import { commitment, startTask } from '../tools/startTool';
import type { StartArgs } from '../../jobs/job';
import { errorCode, messageOf, rpcError } from './errorsSaidOnce';
import { resultForClient } from './resourceLinks';

/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: the 2025 era's tools/call, on the SDK's low-level Server. It answers
 * where McpServer's own handler would not as the 2025-11-25 spec and a bounded call ask:
 * - an unknown tool is a JSON-RPC error (-32602), not an isError result (so is an app-only tool to a client that did
 *   not declare MCP Apps);
 * - a plain call of a start tool (taskSupport 'optional') runs its budgeted wait, not McpServer's automatic task
 *   polling, which waits without a bound;
 * - a task-augmented call that cannot create a task (invalid arguments, a reused key, a bad ttl, a cap's refusal)
 *   is a JSON-RPC error with the tool's own message, where McpServer answers -32602 "Invalid task creation result"
 *   with a zod dump; a task asked of a tool without task support is -32601;
 * - invalid arguments are the argument's own message, without McpServer's "Input validation error: …" prefix;
 * - a result goes without resource_link items to a client that predates them (./resourceLinks.ts), and every
 *   message is said once (./errorsSaidOnce.ts);
 * - to a client that declared MCP Apps (`forView`, ./uiSession2025.ts), an answer carries its view's run facts.
 * Canary: test/unit/sdkSeams.test.ts.
 */
export function answerToolCalls(server: Server, catalog: Catalog, deps: ToolDeps, forView = false): void {
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const { name, arguments: raw, task } = request.params;
        const served = offeredTool(catalog, name, forView);
        if (served === undefined) throw rpcError(ErrorCode.InvalidParams, `Tool ${name} not found`);
        const checked = await checkArguments(served.definition.inputSchema, raw);
        if (task !== undefined) {
            // The 2025-11-25 tasks spec: a task asked of a tool that does not support them is -32601.
            if (!served.starts) throw rpcError(ErrorCode.MethodNotFound, `Tool ${name} does not support tasks: call it without "task"`);
            if ('error' in checked) throw rpcError(ErrorCode.InvalidParams, checked.text);
            try {
                return await createTask(served, checked.args as StartArgs, deps, task.ttl ?? undefined);
            } catch (error) {
                // What the tool refused with (a reused key, a cap, a bad ttl) is said to the user as the tool said it.
                throw rpcError(errorCode(error) ?? ErrorCode.InvalidParams, messageOf(error));
            }
        }
        if ('error' in checked) return checked.error;
        const reportProgress = progressReporter(served.job, extra, deps.log);
        return resultForClient(await served.definition.call(checked.args, deps, { signal: extra.signal, reportProgress, forView }), extra);
    });
}

/**
 * A task-augmented call of a start tool (MCP Tasks, 2025-11-25): starts the workflow and answers at once with the
 * task, whose id is the workflow id; the client then polls tasks/get and fetches the answer with tasks/result.
 */
async function createTask({ job }: ServedTool, args: StartArgs, deps: ToolDeps, ttl: number | undefined): Promise<CreateTaskResult> {
    const started = await startTask(job, deps, args, ttl);
    // Thrown, it is the JSON-RPC error of the tools/call, with this message: no task exists.
    if ('error' in started) throw new Error(started.error);
    const { workflowId, ttlMs, plan, durable } = started;
    const options = taskOptions(deps);
    const task = durable === undefined ? taskAsStarted(job, workflowId, ttlMs, plan.initialProgress, options) : toTask(job, workflowId, durable, options);
    // What the run committed, in the answer that commits it (a Task has no field of its own for it).
    const committed = commitment(job, plan.input, plan.cost);
    return { task, ...(Object.keys(committed).length === 0 ? {} : { _meta: committed }) };
}
