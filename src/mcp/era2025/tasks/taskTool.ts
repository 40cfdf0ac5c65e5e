import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../../deps';
import { progressReporter } from '../../progress';
import { taskAsStarted, TASK_NOT_FOUND } from '../../taskModel';
import type { ToolDefinition } from '../../tools/toolDefinition';
import { startTask } from '../../tools/startTool';
import type { DurableTaskStore } from './durableTaskStore';
import type { CallableTool } from '../toolCalls';
import type { ToolExtra } from '../toolExtra';
import type { JobDefinition, StartArgs } from '../../../jobs/job';

/**
 * A job's start tool on the 2025-era server, a task tool with taskSupport 'optional' (MCP Tasks,
 * 2025-11-25). A task-augmented call starts the workflow and answers at once with the task, whose id is
 * the workflow id; the client then polls with tasks/get and fetches the answer with tasks/result. A plain
 * call keeps the budgeted wait of the tool's own handler: ../toolCalls.ts answers it with `plainCall`, not
 * with SDK 1.32's unbounded automatic task polling. Both start through the workflow service, so an
 * idempotency_key dedupes either way: the task id of a keyed call is the keyed workflow id.
 */
export function registerStartTaskTool(
    server: McpServer,
    deps: ToolDeps,
    job: JobDefinition,
    tool: ToolDefinition,
    taskStore: DurableTaskStore
): CallableTool {
    const { config, log } = deps;

    async function createTask(rawArgs: unknown, extra: ToolExtra): Promise<CreateTaskResult> {
        const args = tool.inputSchema.parse(rawArgs) as StartArgs;
        const started = await startTask(job, deps, args, extra.taskRequestedTtl ?? undefined);
        // Thrown, it is the JSON-RPC error of the tools/call (../toolCalls.ts), with this message: no task exists.
        if ('error' in started) throw new Error(started.error);
        const { workflowId, ttlMs, plan } = started;
        // What the run costs, in the answer that commits it (a Task has no field of its own for it).
        const cost = job.costField === undefined ? undefined : { [job.costField.name]: plan.cost };
        // The task as the backend sees it (a keyed call may find one that already ended)...
        const task = await taskStore.getTask(workflowId).catch((error: unknown) => {
            log.warn(`${tool.name}: task read for ${workflowId} failed`, error);
            return null;
        });
        if (task !== null) return { task, ...(cost === undefined ? {} : { _meta: cost }) };
        // ...or, right after the start, as it was started.
        const nowMs = (deps.wallNow ?? Date.now)();
        const asStarted = taskAsStarted(job, workflowId, ttlMs, plan.initialProgress, { pollAfterSeconds: config.pollAfterSeconds, nowMs });
        return { task: asStarted, ...(cost === undefined ? {} : { _meta: cost }) };
    }

    const registered = server.experimental.tasks.registerToolTask(
        tool.name,
        {
            title: tool.title,
            description: tool.description,
            inputSchema: tool.inputSchema,
            outputSchema: tool.outputSchema,
            annotations: tool.annotations,
            execution: { taskSupport: 'optional' },
        },
        {
            createTask,
            // SDK 1.32 answers tasks/get and tasks/result from the task store and never calls these two.
            getTask: async (_args, extra) => {
                const task = await taskStore.getTask(extra.taskId);
                if (task === null) throw new Error(TASK_NOT_FOUND);
                return task;
            },
            getTaskResult: (_args, extra) => taskStore.getTaskResult(extra.taskId),
        }
    );
    // Arguments arrive validated by ../toolCalls.ts against the same schema.
    const plainCall = async (args: unknown, extra: ToolExtra): Promise<CallToolResult> =>
        tool.call(args as StartArgs, { signal: extra.signal, reportProgress: progressReporter(job, extra, log) }) as Promise<CallToolResult>;
    return { registered, plainCall };
}
