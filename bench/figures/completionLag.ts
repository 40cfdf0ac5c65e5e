/** The figures bench/completionLag.ts measures and bench/report/completionLag.ts renders (why apart: bench/common.ts). */
import type { Backend } from '../backends';

/** One run answered inline, in milliseconds. */
export interface LagRun {
    /** From the workflow's end to the answer's arrival. */
    lag: number;
    /** The workflow's `elapsed_ms`, first to last episode. */
    length: number;
    /** The call's time beyond that length: the start, the first episode's wait, the lag. */
    overhead: number;
    /** From sending the call to the workflow's end. */
    endsAfter: number;
}

export interface CompletionLagFigures {
    difficulties: number[];
    blockCounts: number[];
    rounds: number;
    budgetSeconds: number;
    loadBefore: number;
    loadAfter: number;
    runs: Record<Backend, LagRun[]>;
    /** Why the extension did not run, or false. */
    extensionSkipped: string | false;
}
