/** The figures bench/memory.ts measures and bench/report/memory.ts renders (why apart: bench/common.ts). */

export interface MemoryFigures {
    /** Workflows started. */
    count: number;
    inFlight: number;
    loadBefore: number;
    loadAfter: number;
    /** The host's RSS warmed up and idle, and with `count` workflows running; NaN where /proc cannot tell. */
    idleBytes: number;
    loadedBytes: number;
    /** Seconds to start them all. */
    startSeconds: number;
    /** Of a sample of the started workflows, how many were still running when measured. */
    sample: { asked: number; running: number };
}
