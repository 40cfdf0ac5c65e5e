/** The figures bench/orchestration.ts measures and bench/report/orchestration.ts renders (why apart: bench/common.ts). */

export type OrchestrationHost = 'azurite' | 'memory' | 'extension';

/** The hosts, in the order they take their first turn. */
export const ORCHESTRATION_HOSTS: readonly OrchestrationHost[] = ['azurite', 'memory', 'extension'];

/**
 * The real extension reads `pollingInterval` in seconds and polls the instance's status that often while
 * it waits (1 would round every run up to a whole second); the TypeScript engine is told of the end and
 * ignores it. 10 ms adds at most 10 ms to the extension's runs.
 */
export const WAIT_QUERY = 'timeout=30&pollingInterval=0.01';

export interface OrchestrationFigures {
    activities: number;
    warmup: number;
    runs: number;
    loadBefore: number;
    loadAfter: number;
    /** Milliseconds from the request to the answer of every measured run, per host; empty for a host that did not run. */
    samples: Record<OrchestrationHost, number[]>;
    /** Why the extension's host did not run, or false. */
    extensionSkipped: string | false;
}
