/** The figures bench/pastBudget.ts measures and bench/report/pastBudget.ts renders (why apart: bench/common.ts). */
import type { Backend } from '../backends';

/** One run, in milliseconds. */
export interface PastBudgetRun {
    /** From sending start_mining to the answer that says `completed`. */
    toCompleted: number;
    /** The start_mining call alone (about the budget, by design). */
    startCall: number;
    /** get_mining_result calls, the last one included (a count, not milliseconds). */
    polls: number;
    /** The workflow's own length, first to last episode. */
    elapsed: number;
    /** From the workflow's end (its ExecutionCompleted event) to the answer that says so. */
    seenAfterEnd: number;
    /** toCompleted less elapsed: what the backend and the polling add to the mining, run by run. */
    beyondElapsed: number;
}

export interface PastBudgetFigures {
    rounds: number;
    difficulty: number;
    blocks: number;
    loadBefore: number;
    loadAfter: number;
    runs: Record<Backend, PastBudgetRun[]>;
    /** Why the extension did not run, or false. */
    extensionSkipped: string | false;
}
