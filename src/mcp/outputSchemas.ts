import { z } from 'zod';
import type { JobDefinition } from '../jobs/job';

/**
 * The tools' outputSchema, for any job. The status objects are a discriminated union, but the SDK
 * advertises a top-level union as an empty object, so the schema is one object: a `status` enum plus the
 * fields each status carries, optional here and documented with the status they belong to.
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
            .enum(['error', 'cancelled', 'terminated'])
            .optional()
            .describe(`failed only: error (the work failed), cancelled (by ${job.tools.cancel.name}), terminated (stopped any other way).`),
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

const anySchemas = new WeakMap<JobDefinition, z.ZodObject>();
const startSchemas = new WeakMap<JobDefinition, z.ZodObject>();

/** Every status: the job's get and cancel tools. */
export function anyStatusSchema(job: JobDefinition): z.ZodObject {
    let schema = anySchemas.get(job);
    if (schema === undefined) {
        schema = statusOutputSchema(job, ALL_STATUSES);
        anySchemas.set(job, schema);
    }
    return schema;
}

/**
 * The start tool just created the workflow, so it is never not_found; and it says what it committed, when
 * the job has a cost field. Only its answer carries that: the status objects of the other tools stay small.
 */
export function startStatusSchema(job: JobDefinition): z.ZodObject {
    let schema = startSchemas.get(job);
    if (schema === undefined) {
        const base = statusOutputSchema(job, ['completed', 'running', 'failed']);
        const cost = job.costField;
        schema = cost === undefined ? base : base.extend({ [cost.name]: z.number().int().min(1).optional().describe(cost.description) });
        startSchemas.set(job, schema);
    }
    return schema;
}
