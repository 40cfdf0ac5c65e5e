import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { toTask, toTaskResult, type TaskMappingOptions } from '../taskModel';
import type { JobDefinition } from '../../jobs/job';
import type { DurableStatusLike } from '../../workflow/durableStatus';

/**
 * A job's orchestration as a task of the 2026-07-28 Tasks extension. The mapping of statuses is the
 * one the 2025-11-25 tasks use (../taskModel.ts: a failed workflow is a completed task whose
 * result says isError, an ended-from-outside one is cancelled); only the field names and the inlined
 * result differ. Pure.
 */

export interface TaskFields {
    taskId: string;
    status: Task['status'];
    statusMessage?: string;
    createdAt: string;
    lastUpdatedAt: string;
    ttlMs: number | null;
    pollIntervalMs?: number;
}

/** The 2025-11-25 task's fields under their 2026 names. */
export function taskFieldsOf(task: Task): TaskFields {
    return {
        taskId: task.taskId,
        status: task.status,
        ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
        createdAt: task.createdAt,
        lastUpdatedAt: task.lastUpdatedAt,
        ttlMs: task.ttl,
        ...(task.pollInterval === undefined ? {} : { pollIntervalMs: task.pollInterval }),
    };
}

/** The inlined result is a complete 2026 tools/call result, so it says so (resultType). */
export type DetailedTask = TaskFields & { result?: CallToolResult & { resultType: 'complete' } };

/** What tasks/get answers: the task, and once completed the tool's result inlined (bounded, with its resource link). */
export function detailedTaskOf(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: TaskMappingOptions): DetailedTask {
    const fields = taskFieldsOf(toTask(job, workflowId, durable, options));
    if (fields.status !== 'completed') return fields;
    return { ...fields, result: { resultType: 'complete', ...toTaskResult(job, workflowId, durable, options) } };
}
