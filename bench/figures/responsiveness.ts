/** The figures bench/responsiveness.ts measures and bench/report/responsiveness.ts renders (why apart: bench/common.ts). */

export interface ResponsivenessFigures {
    rounds: number;
    /** Calls per phase of a round. */
    calls: number;
    loadBefore: number;
    loadAfter: number;
    /** Milliseconds of every call with nothing mining, and with a workflow mining on every worker. */
    idle: number[];
    loaded: number[];
    /** The most CPUs the host used during a loaded phase; NaN where /proc cannot tell. */
    busyCores: number;
}
