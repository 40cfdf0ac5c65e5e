import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, type CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog, ServedTool } from '../catalog';
import type { ToolDeps } from '../deps';
import type { DurableTaskStore } from '../era2025/taskStore';
import { progressReporter } from '../progress';
import { taskAsStarted } from '../taskModel';
import { toolError } from '../toolResults';
import { argumentErrors } from '../tools/argumentErrors';
import { startTask } from '../tools/startTool';
import type { StartArgs } from '../../jobs/job';
import { errorCode, messageOf, rpcError } from './errorsSaidOnce';
import { resultForClient } from './resourceLinks';

/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: the 2025 era's tools/call, on the SDK's low-level Server. It answers
 * where McpServer's own handler would not as the 2025-11-25 spec and a bounded call ask:
 * - an unknown tool is a JSON-RPC error (-32602), not an isError result;
 * - a plain call of a start tool (taskSupport 'optional') runs its budgeted wait, not McpServer's automatic task
 *   polling, which waits without a bound;
 * - a task-augmented call that cannot create a task (invalid arguments, a reused key, a bad ttl, a cap's refusal)
 *   is a JSON-RPC error with the tool's own message, where McpServer answers -32602 "Invalid task creation result"
 *   with a zod dump; a task asked of a tool without task support is -32601;
 * - invalid arguments are the argument's own message, without McpServer's "Input validation error: …" prefix;
 * - a result goes without resource_link items to a client that predates them (./resourceLinks.ts), and every
 *   message is said once (./errorsSaidOnce.ts).
 * Canary: test/unit/sdkSeams.test.ts.
 */
export function answerToolCalls(server: Server, catalog: Catalog, deps: ToolDeps, taskStore: DurableTaskStore): void {
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const { name, arguments: raw, task } = request.params;
        const served = catalog.byName.get(name);
        if (served === undefined) throw rpcError(ErrorCode.InvalidParams, `Tool ${name} not found`);
        const parsed = await served.definition.inputSchema.safeParseAsync(raw ?? {});
        const invalid = parsed.success ? undefined : (argumentErrors(parsed.error) ?? 'The arguments do not fit the tool’s input schema.');
        if (task !== undefined) {
            // The 2025-11-25 tasks spec: a task asked of a tool that does not support them is -32601.
            if (!served.starts) throw rpcError(ErrorCode.MethodNotFound, `Tool ${name} does not support tasks: call it without "task"`);
            if (!parsed.success) throw rpcError(ErrorCode.InvalidParams, invalid ?? '');
            try {
                return await createTask(served, parsed.data as StartArgs, deps, taskStore, task.ttl ?? undefined);
            } catch (error) {
                // What the tool refused with (a reused key, a cap, a bad ttl) is said to the user as the tool said it.
                throw rpcError(errorCode(error) ?? ErrorCode.InvalidParams, messageOf(error));
            }
        }
        if (!parsed.success) return toolError(invalid ?? '');
        const reportProgress = progressReporter(served.job, extra, deps.log);
        return resultForClient(await served.definition.call(parsed.data, deps, { signal: extra.signal, reportProgress }), extra);
    });
}

/**
 * A task-augmented call of a start tool (MCP Tasks, 2025-11-25): starts the workflow and answers at once with the
 * task, whose id is the workflow id; the client then polls with tasks/get and fetches the answer with tasks/result.
 * An idempotency_key dedupes as in a plain call: the task id of a keyed call is the keyed workflow id.
 */
async function createTask(served: ServedTool, args: StartArgs, deps: ToolDeps, taskStore: DurableTaskStore, ttl: number | undefined): Promise<CreateTaskResult> {
    const { job, definition } = served;
    const started = await startTask(job, deps, args, ttl);
    // Thrown, it is the JSON-RPC error of the tools/call, with this message: no task exists.
    if ('error' in started) throw new Error(started.error);
    const { workflowId, ttlMs, plan } = started;
    // What the run costs, in the answer that commits it (a Task has no field of its own for it).
    const meta = job.costField === undefined ? {} : { _meta: { [job.costField.name]: plan.cost } };
    // The task as the backend sees it (a keyed call may find one that already ended)...
    const read = await taskStore.getTask(workflowId).catch((error: unknown) => {
        deps.log.warn(`${definition.name}: task read for ${workflowId} failed`, error);
        return null;
    });
    // ...or, right after the start, as it was started.
    const nowMs = (deps.wallNow ?? Date.now)();
    const asStarted = () => taskAsStarted(job, workflowId, ttlMs, plan.initialProgress, { pollAfterSeconds: deps.config.pollAfterSeconds, nowMs });
    return { task: read ?? asStarted(), ...meta };
}
