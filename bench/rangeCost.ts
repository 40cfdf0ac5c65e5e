/**
 * The cost of a range (dispatch to answer) on each Durable backend, for Scale-out: chains of ranges that hold
 * (almost) no work, one host per backend and PARALLEL_RANGES, unpinned, the hosts taking turns run by run.
 */
import { type BenchApp, startAppOn } from './appHost';
import type { Backend } from './backends';
import type { BenchOptions } from './common';
import { mineToEnd, rangesTo, recordedFanOut, type RecordedFanOut, SHORT_BUDGET } from './mineThroughMcp';

/** The smallest RANGE_SIZE, over a block whose nonce is known: the ranges are all but empty, so a range costs its dispatch. */
const DISPATCH_RANGE = 1024;
/** Block 0 at difficulty 16 has nonce 55,783: 55 ranges of 1024 (13: nonce 14,817, 15 ranges). */
const DISPATCH_CHAIN = { difficulty: 16, blocks: 1 } as const;
const SMOKE_DISPATCH_CHAIN = { difficulty: 13, blocks: 1 } as const;
/**
 * Blocks 0 and 1 at difficulty 17 (nonces 147,368 and 150,143): 291 ranges of 1024. Against the 55-range chain, at
 * the widest window, it shows how a range's round trip grows with the run's history (every episode replays it).
 */
const LONG_DISPATCH_CHAIN = { difficulty: 17, blocks: 2 } as const;

export interface RangeCostRow {
    backend: Backend;
    parallel: number;
    /** What the warm-up run recorded in its input. */
    recorded: RecordedFanOut;
    /** `elapsed_ms` / ranges of each run, in milliseconds. */
    perRangeMs: number[];
    ranges: number;
    /** The long chain's figures, at the widest window only (not with --smoke). */
    long?: { perRangeMs: number[]; ranges: number };
}

export interface RangeCostFigures {
    rangeSize: number;
    chain: { difficulty: number; blocks: number };
    longChain: { difficulty: number; blocks: number };
    /** Runs per host. */
    rounds: number;
    rows: RangeCostRow[];
}

/** Measures the rows on `backends`, the hosts on the Azurite at `connectionString`; `apps` holds the hosts to stop. */
export async function measureRangeCost(opts: BenchOptions, backends: readonly Backend[], connectionString: string, apps: BenchApp[]): Promise<RangeCostFigures> {
    const parallels = opts.smoke ? [1, 4] : [1, 4, 16];
    const chain = opts.smoke ? SMOKE_DISPATCH_CHAIN : DISPATCH_CHAIN;
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 3;
    const rows: Array<RangeCostRow & { app: BenchApp }> = [];
    for (const backend of backends) {
        const started = await Promise.all(
            parallels.map((parallel) => startAppOn(backend, connectionString, { ...SHORT_BUDGET, PARALLEL_RANGES: String(parallel), RANGE_SIZE: String(DISPATCH_RANGE) }))
        );
        apps.push(...started);
        started.forEach((app, k) => {
            const parallel = parallels[k] as number;
            const long = !opts.smoke && parallel === Math.max(...parallels) ? { perRangeMs: [], ranges: 0 } : undefined;
            rows.push({ backend, parallel, app, perRangeMs: [], ranges: 0, recorded: { parallelRanges: undefined, rangeSize: undefined }, ...(long ? { long } : {}) });
        });
    }
    for (const row of rows) {
        const warm = await mineToEnd([row.app.mcp], { difficulty: 8, blocks: 1 });
        row.recorded = await recordedFanOut(row.app, warm.workflowId);
    }
    for (let round = 0; round < rounds; round++) {
        // Rotate which host goes first, so none always follows another's run.
        for (let k = 0; k < rows.length; k++) {
            const row = rows[(round + k) % rows.length] as RangeCostRow & { app: BenchApp };
            const mined = await mineToEnd([row.app.mcp], chain);
            row.ranges = rangesTo(mined.result, DISPATCH_RANGE);
            row.perRangeMs.push(mined.result.elapsed_ms / row.ranges);
            if (row.long) {
                const longer = await mineToEnd([row.app.mcp], LONG_DISPATCH_CHAIN);
                row.long.ranges = rangesTo(longer.result, DISPATCH_RANGE);
                row.long.perRangeMs.push(longer.result.elapsed_ms / row.long.ranges);
            }
        }
    }
    return { rangeSize: DISPATCH_RANGE, chain, longChain: LONG_DISPATCH_CHAIN, rounds, rows: rows.map(({ app: _app, ...row }) => row) };
}
