import { z } from 'zod';
import { safeFailureMessage } from './failureMessage';
import { miningResultSchema, progressSchema, type MiningResult, type Progress } from '../orchestration/contracts';
import { isCancelReason, type DurableStatusLike } from '../workflow/durableStatus';

/**
 * Durable orchestration status → the tools' status object (docs/contract.md, "Status objects"), with the
 * sentences for the model (`next`, `error`). Pure: the workflow service reads the Durable status, this
 * decides what the client is told.
 */

export type FailureReason = 'error' | 'cancelled' | 'terminated';

export type CompletedStatus = {
    status: 'completed';
    workflow_id: string;
    result: MiningResult;
    /** Set when result.blocks was cut to fit the answer size limit; `next` then says where the whole is. */
    truncated?: true;
    next?: string;
};
export type RunningStatus = {
    status: 'running';
    workflow_id: string;
    poll_after_seconds: number;
    next: string;
    progress?: Progress;
};
export type FailedStatus = { status: 'failed'; workflow_id: string; reason: FailureReason; error: string; next: string };
export type NotFoundStatus = { status: 'not_found'; workflow_id: string; error: string; next: string };

/** What the Durable status of an existing instance maps to. */
export type WorkflowStatus = CompletedStatus | RunningStatus | FailedStatus;
/** start_mining's answer also says what the run it committed costs (blocks × 2^difficulty). */
export type StartStatus = WorkflowStatus & { expected_attempts?: number };
export type MiningStatus = StartStatus | NotFoundStatus;

export function runningNext(workflowId: string, pollAfterSeconds: number): string {
    return `Call get_mining_result with workflow_id "${workflowId}" in about ${pollAfterSeconds} seconds.`;
}

export function running(workflowId: string, pollAfterSeconds: number, progress?: Progress): RunningStatus {
    const status: RunningStatus = {
        status: 'running',
        workflow_id: workflowId,
        poll_after_seconds: pollAfterSeconds,
        next: runningNext(workflowId, pollAfterSeconds),
    };
    if (progress !== undefined) status.progress = progress;
    return status;
}

export function notFound(workflowId: string): NotFoundStatus {
    return {
        status: 'not_found',
        workflow_id: workflowId,
        error: 'No mining workflow has this id.',
        next: 'Do not poll this id again. Call start_mining to start a new workflow.',
    };
}

const FAILED_NEXT: Record<FailureReason, string> = {
    error: 'Do not poll again. Tell the user that mining failed and why; call start_mining again only if they want to retry.',
    cancelled:
        'Do not poll again. The workflow was cancelled; call start_mining to start a new one if a result is still wanted.',
    terminated:
        'Do not poll again. The workflow was stopped before it finished; call start_mining to start a new one if a result is still wanted.',
};

export function failed(workflowId: string, reason: FailureReason, error: string): FailedStatus {
    return { status: 'failed', workflow_id: workflowId, reason, error, next: FAILED_NEXT[reason] };
}

export interface MappingOptions {
    pollAfterSeconds: number;
    /** Chain length to report when the instance has published no progress yet and its input is unknown. */
    blocksTotal?: number;
}

/** Maps the Durable status of an existing instance. */
export function toWorkflowStatus(workflowId: string, durable: DurableStatusLike, options: MappingOptions): WorkflowStatus {
    switch (durable.runtimeStatus) {
        case 'Completed': {
            const parsed = miningResultSchema.safeParse(durable.output);
            return parsed.success
                ? { status: 'completed', workflow_id: workflowId, result: parsed.data }
                : failed(workflowId, 'error', 'The workflow finished but its result could not be read.');
        }
        case 'Failed':
            return failed(workflowId, 'error', safeFailureMessage(durable.output));
        case 'Terminated':
            return isCancelReason(durable.output)
                ? failed(workflowId, 'cancelled', 'The workflow was cancelled (cancel_mining or tasks/cancel) before it finished.')
                : failed(workflowId, 'terminated', 'The workflow was terminated before it finished.');
        case 'Canceled':
            return failed(workflowId, 'terminated', 'The workflow was canceled before it finished.');
        case 'Pending':
        case 'Running':
        case 'ContinuedAsNew':
        case 'Suspended':
        default:
            // An unknown status is taken as not finished yet: a poll later costs little, while a
            // wrong "failed" would make the client abandon a workflow that may still complete.
            return running(workflowId, options.pollAfterSeconds, progressOf(durable, options.blocksTotal));
    }
}

const inputBlocksSchema = z.object({ blocks: z.number().int().min(1) });

/** The published progress, else none done out of the chain length (from the input if available). */
function progressOf(durable: DurableStatusLike, blocksTotal: number | undefined): Progress | undefined {
    const published = progressSchema.safeParse(durable.customStatus);
    if (published.success) return published.data;
    const input = inputBlocksSchema.safeParse(durable.input);
    const total = input.success ? input.data.blocks : blocksTotal;
    return total === undefined ? undefined : { blocks_done: 0, blocks_total: total };
}
