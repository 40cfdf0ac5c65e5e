import type { JobDefinition } from './job';
import { MINING } from './mining/job';
import { COUNT_PRIMES_JOB } from './primes/job';

/**
 * The registry of jobs, the one list of them: src/functions/ registers every job's orchestrator and activities (so a
 * workflow started before a job was disabled still runs to its end), ENABLED_JOBS is checked against it, both
 * protocol eras serve the tools of the jobs ENABLED_JOBS names, and the tests run for every job in it, in this order.
 * A job of your own is one line here (docs/how-it-works.md, "Your own slow job behind MCP").
 */
export const JOBS: readonly JobDefinition[] = [MINING, COUNT_PRIMES_JOB];

/** The jobs' names, as ENABLED_JOBS lists them. */
export const JOB_NAMES: readonly string[] = JOBS.map((job) => job.name);

/** The jobs whose tools are served. */
export function enabledJobs(config: { enabledJobs: readonly string[] }): readonly JobDefinition[] {
    return JOBS.filter((job) => config.enabledJobs.includes(job.name));
}
