import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { JobDefinition } from '../jobs/job';
import { toWorkflowStatus, type WorkflowStatus } from './statusObjects';
import { statusResult } from './toolResults';
import { withCost } from './tools/startTool';
import { timeMs, type DurableStatusLike } from '../workflow/durableStatus';
import { taskTtlMs } from '../workflow/expiry';

/**
 * A job's orchestration seen as an MCP task, for both eras (the 2026 Tasks extension renames the fields:
 * era2026/detailedTask.ts). Pure: each era reads the Durable status, this decides what the client is told.
 *
 *   Pending, Running, ContinuedAsNew, Suspended (and any unknown status) → working
 *   Completed                                                           → completed
 *   Failed                                                              → completed, result isError: true
 *   Terminated, Canceled                                                → cancelled
 *
 * A failed workflow is a failed tool call, not a failed protocol request: the task is `completed` and
 * its result says isError: true. That is what the 2026 Tasks extension requires, and the 1.32 client
 * would drop the result of a `failed` task. An ended-from-outside workflow (a cancel, an operator) is
 * `cancelled`; its result, should a client ask, is the `failed` status with isError: true.
 */

export const TASK_NOT_FOUND = 'Task not found';

export interface TaskMappingOptions {
    pollAfterSeconds: number;
    maxResultChars: number;
    /** Wall time, for a status that lacks timestamps. */
    nowMs: number;
}

function taskStatusOf(durable: DurableStatusLike): Task['status'] {
    switch (durable.runtimeStatus) {
        case 'Completed':
        case 'Failed':
            return 'completed';
        case 'Terminated':
        case 'Canceled':
            return 'cancelled';
        default:
            return 'working';
    }
}

function statusMessageOf(job: JobDefinition, status: WorkflowStatus): string {
    switch (status.status) {
        case 'running':
            return status.progress === undefined ? job.workingMessage : job.progress.message(status.progress);
        case 'completed':
            return job.completedMessage(status.result);
        case 'failed':
            return status.error;
    }
}

export function toTask(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: TaskMappingOptions): Task {
    const status = toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds: options.pollAfterSeconds });
    const createdMs = timeMs(durable.createdTime) ?? options.nowMs;
    const updatedMs = timeMs(durable.lastUpdatedTime) ?? createdMs;
    return {
        taskId: workflowId,
        status: taskStatusOf(durable),
        ttl: taskTtlMs(durable),
        createdAt: new Date(createdMs).toISOString(),
        lastUpdatedAt: new Date(updatedMs).toISOString(),
        pollInterval: options.pollAfterSeconds * 1000,
        statusMessage: statusMessageOf(job, status),
    };
}

/**
 * The task of a workflow a start has just handed out, before the backend shows it: as it was started
 * (the workflow exists, so the task does), with none of its work done yet.
 */
export function taskAsStarted(
    job: JobDefinition,
    workflowId: string,
    ttlMs: number | undefined,
    initialProgress: Record<string, unknown>,
    options: Pick<TaskMappingOptions, 'pollAfterSeconds' | 'nowMs'>
): Task {
    const now = new Date(options.nowMs).toISOString();
    return {
        taskId: workflowId,
        status: 'working',
        ttl: ttlMs ?? null,
        createdAt: now,
        lastUpdatedAt: now,
        pollInterval: options.pollAfterSeconds * 1000,
        statusMessage: job.progress.message(initialProgress),
    };
}

/** tasks/result: the start tool's answer the workflow ended with (bounded, with the resource link, and its cost). */
export function toTaskResult(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: TaskMappingOptions): CallToolResult {
    const status = toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds: options.pollAfterSeconds });
    const result = statusResult(job, withCost(job, status, job.costField?.of(durable.input)), options.maxResultChars);
    // The task's status cannot say that the work failed (it is completed or cancelled): isError does.
    return (status.status === 'failed' ? { ...result, isError: true } : result) as CallToolResult;
}
