import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from './deps';
import { toWorkflowStatus, type WorkflowStatus } from './statusObjects';
import { statusResult } from './toolResults';
import { withCost } from './tools/startTool';
import { jobOf, type JobDefinition } from '../jobs/job';
import { timeMs, type DurableStatusLike } from '../workflow/durableStatus';
import { taskTtlMs } from '../workflow/expiry';
import { WorkflowUnavailableError } from '../workflow/workflowService';

/**
 * A job's orchestration seen as an MCP task, for both eras (the 2026 Tasks extension renames the fields). Pure but
 * for `readTask`: each era says the answer its own way.
 *
 *   Pending, Running, ContinuedAsNew, Suspended (and any unknown status) → working
 *   Completed                                                           → completed
 *   Failed                                                              → completed, result isError: true
 *   Terminated, Canceled                                                → cancelled
 *
 * A failed workflow is a failed tool call, not a failed protocol request: the task is `completed` and its result
 * says isError: true, as the 2026 Tasks extension requires (and the 1.32 client would drop a `failed` task's
 * result). An ended-from-outside workflow is `cancelled`; its result, should a client ask, is the `failed` status.
 */

export const TASK_NOT_FOUND = 'Task not found';

export interface TaskMappingOptions {
    pollAfterSeconds: number;
    maxResultChars: number;
    /** Wall time, for a status that lacks timestamps. */
    nowMs: number;
}

export function taskOptions({ config, wallNow }: Pick<ToolDeps, 'config' | 'wallNow'>): TaskMappingOptions {
    return { pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs: (wallNow ?? Date.now)() };
}

/** The caller's workflow of a served job behind a task id, or undefined; a backend failure throws `unavailable()`. */
export async function readTask(deps: ToolDeps, taskId: string, unavailable: () => Error): Promise<{ job: JobDefinition; durable: DurableStatusLike } | undefined> {
    const durable = await deps.workflows.read(taskId).catch((error: unknown) => {
        throw error instanceof WorkflowUnavailableError ? unavailable() : error;
    });
    const job = durable === undefined ? undefined : jobOf(deps.jobs, durable.name);
    return job === undefined || durable === undefined ? undefined : { job, durable };
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

export function toTask(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: Pick<TaskMappingOptions, 'pollAfterSeconds' | 'nowMs'>): Task {
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

/** The task of a workflow a start has just handed out, before the backend shows it: as started, none of its work done. */
export function taskAsStarted(job: JobDefinition, workflowId: string, ttlMs: number | undefined, initialProgress: Record<string, unknown>, options: Pick<TaskMappingOptions, 'pollAfterSeconds' | 'nowMs'>): Task {
    const now = new Date(options.nowMs).toISOString();
    const pollInterval = options.pollAfterSeconds * 1000;
    return { taskId: workflowId, status: 'working', ttl: ttlMs ?? null, createdAt: now, lastUpdatedAt: now, pollInterval, statusMessage: job.progress.message(initialProgress) };
}

/** tasks/result: the start tool's answer the workflow ended with (bounded, with the resource link, and its cost). */
export function toTaskResult(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: TaskMappingOptions): CallToolResult {
    const status = toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds: options.pollAfterSeconds });
    const result = statusResult(job, withCost(job, status, durable.input), options.maxResultChars);
    // The task's status cannot say that the work failed (it is completed or cancelled): isError does.
    return (status.status === 'failed' ? { ...result, isError: true } : result) as CallToolResult;
}

/** A task under its 2026-07-28 field names (the Tasks extension: ttlMs, pollIntervalMs), in the extension's order. */
export function task2026({ taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval }: Task) {
    return { taskId, status, ...(statusMessage === undefined ? {} : { statusMessage }), createdAt, lastUpdatedAt, ttlMs: ttl, ...(pollInterval === undefined ? {} : { pollIntervalMs: pollInterval }) };
}
