import { z } from 'zod';
import type { JobDefinition } from '../jobs/job';
import { viewStatusToolName, type ViewSpec } from './contract';

/** A job's view spec (./contract.ts) from its definition: run by scripts/build-views.mjs, in Node, at build time. */
export function viewSpecOf(job: JobDefinition): ViewSpec {
    const { start, get, cancel } = job.tools;
    return {
        job: job.name,
        title: job.noun.charAt(0).toUpperCase() + job.noun.slice(1),
        tools: { start: start.name, get: get.name, status: viewStatusToolName(job.name), cancel: cancel.name },
        resultSchema: z.toJSONSchema(job.result.schema, { io: 'output', unrepresentable: 'any' }),
    };
}
