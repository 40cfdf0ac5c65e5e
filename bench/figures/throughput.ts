/** The figures bench/throughput.ts measures and bench/report/throughput.ts renders (why apart: bench/common.ts). */

/** The four calls, in the order they are measured and shown. */
export type CallId = 'toolsList' | 'getNotFound' | 'getCompleted' | 'startInline';

/** Calls per second of one call, each round's, the app's and the bare server's (through the host also behind a forward proxy). */
export interface CallRates {
    call: CallId;
    app: number[];
    bare: number[];
    proxied?: number[];
}

export interface ThroughputFigures {
    /** Calls in flight through the local host (in process: one at a time). */
    inFlight: number;
    loadBefore: number;
    loadAfter: number;
    inProcess: CallRates[];
    throughHost: CallRates[];
    /** Mean milliseconds, one at a time: a completed get, and its Durable status read alone. */
    share: { readMs: number; getMs: number } | undefined;
}
