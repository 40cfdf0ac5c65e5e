import type { Config } from '../config';
import type { JobDefinition } from './job';
import type { JobName } from './jobNames';
import { MINING } from './mining/job';
import { COUNT_PRIMES_JOB } from './primes/job';

/**
 * The registry of jobs: src/functions/ registers every job's orchestrator and activities (so a workflow
 * started before a job was disabled still runs to its end), and both protocol eras serve the tools of the
 * jobs ENABLED_JOBS names, in this order.
 */
export const JOBS: Readonly<Record<JobName, JobDefinition>> = {
    mining: MINING,
    count_primes: COUNT_PRIMES_JOB,
};

/** The jobs whose tools are served. */
export function enabledJobs(config: Pick<Config, 'enabledJobs'>): readonly JobDefinition[] {
    return (Object.keys(JOBS) as JobName[]).filter((name) => config.enabledJobs.includes(name)).map((name) => JOBS[name]);
}
