/** The jobs this app has, by the name ENABLED_JOBS lists them with (src/jobs/index.ts holds their definitions). */
export const JOB_NAMES = ['mining', 'count_primes'] as const;
export type JobName = (typeof JOB_NAMES)[number];
