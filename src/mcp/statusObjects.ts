import { safeFailureMessage } from './failureMessage';
import type { JobDefinition, JobProgress, JobResult } from '../jobs/job';
import { LIMIT_PREFIX, limitReasonOf, type LimitReason } from '../jobs/limits';
import { isCancelReason, type DurableStatusLike } from '../workflow/durableStatus';

/**
 * Durable orchestration status → the tools' status object (docs/contract.md, "Status objects"), with the
 * sentences for the model (`next`, `error`), for any job. Pure: the workflow service reads the Durable
 * status, this decides what the client is told.
 */

export type FailureReason = 'error' | 'cancelled' | 'terminated' | LimitReason;

export type CompletedStatus = {
    status: 'completed';
    workflow_id: string;
    result: JobResult;
    /** Set when the result was cut to fit the answer size limit; `next` then says where the whole is. */
    truncated?: true;
    next?: string;
};
export type RunningStatus = {
    status: 'running';
    workflow_id: string;
    poll_after_seconds: number;
    next: string;
    progress?: JobProgress;
};
export type FailedStatus = { status: 'failed'; workflow_id: string; reason: FailureReason; error: string; next: string };
export type NotFoundStatus = { status: 'not_found'; workflow_id: string; error: string; next: string };

/** What the Durable status of an existing instance maps to. */
export type WorkflowStatus = CompletedStatus | RunningStatus | FailedStatus;
/** A start's answer may also say what the run it committed costs (the job's cost field). */
export type StartStatus = WorkflowStatus & Record<string, unknown>;
export type JobStatus = StartStatus | NotFoundStatus;

function runningNext(job: JobDefinition, workflowId: string, pollAfterSeconds: number): string {
    return `Call ${job.tools.get.name} with workflow_id "${workflowId}" in about ${pollAfterSeconds} seconds.`;
}

export function running(job: JobDefinition, workflowId: string, pollAfterSeconds: number, progress?: JobProgress): RunningStatus {
    const status: RunningStatus = {
        status: 'running',
        workflow_id: workflowId,
        poll_after_seconds: pollAfterSeconds,
        next: runningNext(job, workflowId, pollAfterSeconds),
    };
    if (progress !== undefined) status.progress = progress;
    return status;
}

export function notFound(job: JobDefinition, workflowId: string): NotFoundStatus {
    return {
        status: 'not_found',
        workflow_id: workflowId,
        error: `No ${job.noun} has this id.`,
        next: `Do not poll this id again. Call ${job.tools.start.name} to start a new workflow.`,
    };
}

function failedNext(job: JobDefinition, reason: FailureReason): string {
    switch (reason) {
        case 'error':
            return job.failedNext;
        case 'cancelled':
            return `Do not poll again. The workflow was cancelled; call ${job.tools.start.name} to start a new one if a result is still wanted.`;
        case 'terminated':
            return `Do not poll again. The workflow was stopped before it finished; call ${job.tools.start.name} to start a new one if a result is still wanted.`;
        case 'work_limit':
            return `Do not poll again. Tell the user the work ran far past what was expected and was stopped; call ${job.tools.start.name} again to retry, or with less work.`;
        case 'time_limit':
            return `Do not poll again. Tell the user the work ran longer than this server allows; call ${job.tools.start.name} again with less work.`;
    }
}

export function failed(job: JobDefinition, workflowId: string, reason: FailureReason, error: string): FailedStatus {
    return { status: 'failed', workflow_id: workflowId, reason, error, next: failedNext(job, reason) };
}

export interface MappingOptions {
    pollAfterSeconds: number;
    /** The progress to report when the instance has published none yet and its input is unknown. */
    initialProgress?: JobProgress;
    /** Wall time now (ms since the epoch): given, a running workflow that has not moved for STALLED_AFTER_SECONDS says so. */
    nowMs?: number;
}

/**
 * A running workflow whose status has not changed for this long is said to be stalled. Every activity's
 * answer updates the status, and one activity is bounded well below this (a mining range is about 30 s on
 * 2 vCPUs, BENCHMARKS.md); what stops it for minutes is a crashed instance whose work waits for its queue
 * message to become visible again (docs/local-host.md, "the crash window").
 */
export const STALLED_AFTER_SECONDS = 180;
/** The poll hint while stalled: polling every few seconds changes nothing until the work is taken up again. */
export const STALLED_POLL_AFTER_SECONDS = 30;

function stalledSeconds(durable: DurableStatusLike, nowMs: number | undefined): number | undefined {
    if (nowMs === undefined || durable.lastUpdatedTime === undefined) return undefined;
    const updated = new Date(durable.lastUpdatedTime).getTime();
    if (!Number.isFinite(updated)) return undefined;
    const seconds = Math.floor((nowMs - updated) / 1000);
    return seconds >= STALLED_AFTER_SECONDS ? seconds : undefined;
}

/** `running`, with words for the model when the workflow has not moved for minutes, and a longer poll hint. */
function runningOrStalled(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: MappingOptions): RunningStatus {
    const progress = progressOf(job, durable, options.initialProgress);
    const stalled = durable.runtimeStatus === 'Suspended' ? undefined : stalledSeconds(durable, options.nowMs);
    if (stalled === undefined) return running(job, workflowId, options.pollAfterSeconds, progress);
    const pollAfter = Math.max(options.pollAfterSeconds, STALLED_POLL_AFTER_SECONDS);
    const status = running(job, workflowId, pollAfter, progress);
    status.next =
        `No progress for ${Math.round(stalled / 60)} minutes: the server is most likely recovering from a restart, and the ` +
        'work resumes on its own without being started again. Tell the user it is delayed. ' +
        runningNext(job, workflowId, pollAfter);
    return status;
}

/** Maps the Durable status of an existing instance of `job`. */
export function toWorkflowStatus(job: JobDefinition, workflowId: string, durable: DurableStatusLike, options: MappingOptions): WorkflowStatus {
    switch (durable.runtimeStatus) {
        case 'Completed': {
            const parsed = job.result.schema.safeParse(durable.output);
            return parsed.success
                ? { status: 'completed', workflow_id: workflowId, result: parsed.data }
                : failed(job, workflowId, 'error', 'The workflow finished but its result could not be read.');
        }
        case 'Failed':
            return failed(job, workflowId, limitReasonOf(durable.output) ?? 'error', safeFailureMessage(durable.output, job.failedFallback).replace(LIMIT_PREFIX, ''));
        case 'Terminated':
            return isCancelReason(durable.output)
                ? failed(job, workflowId, 'cancelled', 'The workflow was cancelled before it finished.')
                : failed(job, workflowId, 'terminated', 'The workflow was terminated before it finished.');
        case 'Canceled':
            return failed(job, workflowId, 'terminated', 'The workflow was canceled before it finished.');
        case 'Pending':
        case 'Running':
        case 'ContinuedAsNew':
        case 'Suspended':
        default:
            // An unknown status is taken as not finished yet: a poll later costs little, while a
            // wrong "failed" would make the client abandon a workflow that may still complete.
            return runningOrStalled(job, workflowId, durable, options);
    }
}

/** The published progress, else none done (from the input if it shows enough, else as the start planned it). */
export function progressOf(job: JobDefinition, durable: DurableStatusLike, initial: JobProgress | undefined): JobProgress | undefined {
    const published = job.progress.schema.safeParse(durable.customStatus);
    if (published.success) return published.data;
    return job.progress.initial(durable.input) ?? initial;
}
