/** The figures bench/load.ts measures and bench/report/load.ts renders (why apart: bench/common.ts). */
import type { Machine } from '../common';

export type ToolName = 'start_mining' | 'get_mining_result';

/** What a load run takes, each with its default. */
export interface LoadSettings {
    /** Concurrent clients, each starting one run; default 50, at most 200. */
    clients: number;
    /** Difficulty of every run; default 20 (a few seconds per run when 50 share two cores with the SIMD kernel). */
    difficulty: number;
    /** The host's WAIT_BUDGET_SECONDS; default 1, so start_mining answers `running` and the poll path is used. */
    waitBudgetSeconds: number;
    /** Between a client's polls; default 500 ms (faster than the 5 s hint, to load the endpoint). */
    pollIntervalMs: number;
    /** Everything stops by then; runs not finished count as lost. Default 240 s. */
    deadlineSeconds: number;
}

export interface LoadFigures {
    /** The options the run took, defaults filled in. */
    settings: LoadSettings;
    machine: Machine;
    loadBefore: number;
    loadAfter: number;
    totalMs: number;
    /** Milliseconds of every call per tool; get_mining_result's is empty when every start answered `completed`. */
    latencies: Record<ToolName, number[]>;
    completed: number;
    /** start_mining calls that answered `running` (the poll path was used). */
    startedRunning: number;
    /** Each lost run and each error, in words. */
    lost: string[];
    errors: string[];
}
