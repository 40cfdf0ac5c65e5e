/** The figures bench/statusReads.ts measures and bench/report/statusReads.ts renders (why apart: bench/common.ts). */
import type { Backend } from '@mcp-mining/testkit';
import type { BackoffOptions } from '../../src/workflow/budgetedWait';

export interface StatusReadsRow {
    backend: Backend;
    schedule: 'old' | 'new';
    backoff: BackoffOptions;
    /** Per run: from its end to the read that saw it, in milliseconds, and the reads its wait made. */
    lags: number[];
    reads: number[];
    /** Reads in one wait of the whole budget on a run that outlasts it. */
    readsInWholeWait: number;
}

export interface StatusReadsFigures {
    difficulties: number[];
    blockCounts: number[];
    wholeWaitMs: number;
    loadBefore: number;
    loadAfter: number;
    rows: StatusReadsRow[];
    /** The backends that did not run, each with its reason. */
    skipped: Array<{ backend: Backend; reason: string }>;
}
