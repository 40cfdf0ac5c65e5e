import { z } from 'zod';
import type { JobDefinition } from '../jobs/job';

/**
 * The tools' outputSchema, for any job: one object, a `status` enum plus each status's fields, optional and said
 * with the status they belong to (the SDK advertises a top-level union, which the status objects are, as empty).
 */

const ALL_STATUSES = ['completed', 'running', 'failed', 'not_found'] as const;
export type StatusName = (typeof ALL_STATUSES)[number];

function statusMeanings(job: JobDefinition): Record<StatusName, string> {
    return {
        completed: 'completed: use `result`.',
        running: `running: call ${job.tools.get.name} after poll_after_seconds.`,
        failed: 'failed: do not poll again; `reason` and `error` say why.',
        not_found: 'not_found: no workflow has this id; do not poll it again.',
    };
}

function statusOutputSchema(job: JobDefinition, statuses: readonly [StatusName, ...StatusName[]]): z.ZodObject {
    const meanings = statusMeanings(job);
    const schema = z.object({
        status: z.enum(statuses).describe(statuses.map((name) => meanings[name]).join(' ')),
        workflow_id: z.string().describe('The workflow this status is about (as given, for not_found).'),
        result: job.result.schema.optional().describe(job.result.description),
        poll_after_seconds: z.number().int().min(1).optional().describe('running only: seconds to wait before polling.'),
        progress: job.progress.schema.optional().describe(job.progress.description),
        reason: z
            .enum(['error', 'cancelled', 'terminated', 'work_limit', 'time_limit'])
            .optional()
            .describe(
                `failed only: error (the work failed), cancelled (by ${job.tools.cancel.name}), terminated (stopped any other way), ` +
                    'work_limit or time_limit (stopped at its most work or its longest run).'
            ),
        error: z.string().optional().describe('failed and not_found: a message safe to show the user.'),
    });
    const next = z
        .string()
        .optional()
        .describe(
            job.result.cut === undefined
                ? 'running, failed and not_found: what to do next, as an instruction.'
                : 'running, failed, not_found and a truncated completed: what to do next, as an instruction.'
        );
    // Only a job whose result can be cut says so (src/mcp/truncate.ts).
    return job.result.cut === undefined
        ? schema.extend({ next })
        : schema.extend({ truncated: z.boolean().optional().describe(job.result.cut.description), next });
}

/** Every status: the job's get and cancel tools. */
export function anyStatusSchema(job: JobDefinition): z.ZodObject {
    return statusOutputSchema(job, ALL_STATUSES);
}

/** The start tool's: never not_found (it just created the workflow), and what it committed (tools/startTool.ts, commitment). */
export function startStatusSchema(job: JobDefinition): z.ZodObject {
    const { costField: cost, workLimitField: work } = job;
    return statusOutputSchema(job, ['completed', 'running', 'failed']).extend({
        ...(cost === undefined ? {} : { [cost.name]: z.number().int().min(1).optional().describe(cost.description) }),
        ...(work === undefined ? {} : { [work.name]: z.number().int().min(1).optional().describe(work.description) }),
        time_limit_seconds: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe('Set by a start: the longest the workflow may run (MAX_WORKFLOW_SECONDS); past it, it ends failed with reason time_limit.'),
    });
}
