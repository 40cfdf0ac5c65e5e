import { z } from 'zod';
import { miningResultSchema, progressSchema } from '../orchestration/contracts';

/**
 * The tools' outputSchema. The status objects are a discriminated union, but the SDK advertises a
 * top-level union as an empty object, so the schema is one object: a `status` enum plus the fields
 * each status carries, optional here and documented with the status they belong to.
 */

const ALL_STATUSES = ['completed', 'running', 'failed', 'not_found'] as const;
export type StatusName = (typeof ALL_STATUSES)[number];

const STATUS_MEANINGS: Record<StatusName, string> = {
    completed: 'completed: use `result`.',
    running: 'running: call get_mining_result after poll_after_seconds.',
    failed: 'failed: do not poll again; `reason` and `error` say why.',
    not_found: 'not_found: no workflow has this id; do not poll it again.',
};

export function statusOutputSchema<const S extends readonly [StatusName, ...StatusName[]]>(statuses: S) {
    return z.object({
        status: z.enum(statuses).describe(statuses.map((name) => STATUS_MEANINGS[name]).join(' ')),
        workflow_id: z.string().describe('The workflow this status is about (as given, for not_found).'),
        result: miningResultSchema.optional().describe('completed only: the mined chain.'),
        poll_after_seconds: z.number().int().min(1).optional().describe('running only: seconds to wait before polling.'),
        progress: progressSchema.optional().describe('running only: blocks mined so far.'),
        reason: z
            .enum(['error', 'cancelled', 'terminated'])
            .optional()
            .describe('failed only: error (the work failed), cancelled (by cancel_mining), terminated (stopped any other way).'),
        error: z.string().optional().describe('failed and not_found: a message safe to show the user.'),
        truncated: z
            .boolean()
            .optional()
            .describe('completed only, and only when true: result.blocks was cut to fit the answer size limit; `next` names the resource with the whole result.'),
        next: z
            .string()
            .optional()
            .describe('running, failed, not_found and a truncated completed: what to do next, as an instruction.'),
    });
}

/** Every status: get_mining_result and cancel_mining. */
export const anyStatusSchema = statusOutputSchema(ALL_STATUSES);
/**
 * start_mining just created the workflow, so it is never not_found; and it says what it committed.
 * Only its answer carries expected_attempts: the status objects of the other tools stay small.
 */
export const startStatusSchema = statusOutputSchema(['completed', 'running', 'failed']).extend({
    expected_attempts: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Always set by start_mining and tasks/result: the work the call started: blocks × 2^difficulty expected hash attempts (one more bit of difficulty doubles it).'),
});
