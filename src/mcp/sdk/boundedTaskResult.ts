import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, GetTaskPayloadRequestSchema, McpError, RELATED_TASK_META_KEY, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../deps';
import type { DurableTaskStore } from '../era2025/taskStore';
import { TASK_NOT_FOUND } from '../taskModel';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { budgetedWait, systemClock } from '../../workflow/budgetedWait';

/**
 * Seam, @modelcontextprotocol/sdk 1.32.2: tasks/result with a bound. SDK 1.32's own handler waits inside the request until the task ends, with
 * no limit: a client that asks early would hold an invocation open for as long as the work runs, past
 * Azure's 230 s HTTP limit. This one waits at most WAIT_BUDGET_SECONDS, like a start tool, and then
 * answers with an error that says to poll tasks/get first. (The SDK's own client asks for the result
 * only once tasks/get says the task ended, so it never sees that error.) Canary: test/unit/sdkSeams.test.ts.
 */
export function registerBoundedTaskResult(server: Server, deps: ToolDeps, taskStore: DurableTaskStore): void {
    const { config } = deps;
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
        const { taskId } = request.params;
        const clock = deps.clock ?? systemClock;
        const outcome = await budgetedWait<Task | null>({
            read: () => taskStore.getTask(taskId),
            // null (unknown) is final too: there is nothing to wait for.
            isFinal: (task) => task === null || isTerminal(task.status),
            // At least one read, even with a zero wait budget.
            budgetMs: Math.max(1000, config.waitBudgetSeconds * 1000),
            signal: extra.signal,
            clock,
        });
        const task = outcome.last;
        if (task === null) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        // Every read failed (each was logged): the state is unknown.
        if (task === undefined) throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
        if (!isTerminal(task.status)) {
            throw new McpError(
                ErrorCode.InvalidRequest,
                `The task is still working after ${config.waitBudgetSeconds} s. Poll tasks/get every pollInterval ms and call tasks/result once it has ended.`
            );
        }
        const result = await taskStore.getTaskResult(taskId);
        return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    });
}
