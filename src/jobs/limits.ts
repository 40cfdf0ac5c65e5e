import { z } from 'zod';

/**
 * The hard bounds of a workflow, beside the expected work MAX_WORK admits: the most work it may do (in its job's
 * unit) and the longest it may run. Both travel in the orchestration's input, fixed at start, so a redeploy never
 * changes a replay; an input without them (a workflow started before they existed) has none. The orchestrator
 * checks them between pieces of work, on the orchestration's own clock, so the check is replay-safe and costs
 * nothing; a workflow past either ends failed with the reason below and a sentence the model can act on.
 */

export type LimitReason = 'work_limit' | 'time_limit';

export const limitsSchema = z.object({
    work_limit: z.number().int().min(1).optional(),
    time_limit_seconds: z.number().int().min(1).optional(),
});
export type Limits = z.infer<typeof limitsSchema>;

/** Thrown by an orchestrator past a limit: the workflow fails, its output starting with the reason. */
export class LimitReached extends Error {
    constructor(
        readonly reason: LimitReason,
        text: string
    ) {
        super(`${reason}: ${text}`);
    }
}

/** Throws LimitReached when the orchestration has run past its time limit (`now` and `startedAt`: its own clock). */
export function checkTime(limits: Limits, startedAtMs: number, nowMs: number): void {
    const seconds = limits.time_limit_seconds;
    if (seconds !== undefined && nowMs - startedAtMs > seconds * 1000) {
        throw new LimitReached('time_limit', `The workflow ran longer than its time limit of ${seconds} s (MAX_WORKFLOW_SECONDS) and was stopped.`);
    }
}

/** Throws LimitReached when `done` units of work reach the workflow's work limit. */
export function checkWork(limits: Limits, done: number, unit: string): void {
    const limit = limits.work_limit;
    if (limit !== undefined && done >= limit) {
        throw new LimitReached('work_limit', `The workflow did ${done} ${unit}, its work limit of ${limit}, without finishing, and was stopped.`);
    }
}

/** The reason that leads a limit's message. */
export const LIMIT_PREFIX = /^(?:work_limit|time_limit): /;

/** The reason a failed workflow's output names when it failed at a limit (the host wraps the message). */
export function limitReasonOf(output: unknown): LimitReason | undefined {
    if (typeof output !== 'string') return undefined;
    const match = /\b(work_limit|time_limit): /.exec(output.split(/\r?\n/, 1)[0] ?? '');
    return match?.[1] as LimitReason | undefined;
}
