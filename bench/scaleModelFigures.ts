/**
 * The wall-time model's figures (bench/scaleModel.ts) from what Scale-out measured: a range's round trip per
 * backend, the model checked against the pinned runs, N instances on Azure, and the model over the sizes and
 * windows the RANGE_SIZE and PARALLEL_RANGES rules read. Numbers only; the rules are in bench/rules/.
 */
import type { Backend } from './backends';
import type { PinnedHostsFigures, PinnedRun } from './pinnedHosts';
import type { RangeCostFigures, RangeCostRow } from './rangeCost';
import type { WindowRow } from './rules/parallelRanges';
import { type RangeSizeRow, SLOW_CORE_SHARE } from './rules/rangeSize';
import { type ModelParameters, modelExpectedRun, modelRun } from './scaleModel';
import { median } from './stats';

/** 4 blocks at difficulty 32: MAX_WORK's 2^34 expected attempts. */
const LONG_CHAIN = { blocks: 4, mean: 2 ** 32 } as const;
/** 4 blocks at difficulty 27 (DEFAULT_DIFFICULTY): a default run. */
const DEFAULT_CHAIN = { blocks: 4, mean: 2 ** 27 } as const;
/** The sizes the RANGE_SIZE rule reads the model at. */
const SIZES = [20, 21, 22, 23, 24, 25, 26, 27].map((e) => 2 ** e);
/** The windows the PARALLEL_RANGES rule reads the model at. */
const WINDOWS = [1, 2, 3, 4, 6, 8, 16];
/** N instances of one core each, and P: the Azure table's rows. */
const CASES: ReadonlyArray<readonly [n: number, parallel: number]> = [
    [1, 4],
    [2, 4],
    [4, 4],
    [16, 16],
    [64, 16],
    [64, 64],
];
/** Without the pinned runs (no extension, --smoke): the one-thread kernel rate BENCHMARKS.md "Mining" recorded. */
const RECORDED_RATE = 4.25e6;
/** The windows whose round trip the section states. */
const STATED_WINDOWS = [1, 4, 16];

export interface RoundTrips {
    /** The backend whose rows the model takes: the real extension's where it ran. */
    backend: Backend;
    /** A range's round trip at the start of a run with P in flight, in seconds, for P = 1, 4, 16. */
    atStart: Array<{ parallel: number; seconds: number }>;
    /** Seconds the round trip grows by per range already in the history; undefined when the long chain did not run. */
    growth: number | undefined;
}

export interface ModelCheck {
    /** Per run: the model at the rate probed before it, and the measured `elapsed_ms`, in seconds. */
    one: Array<{ model: number; measured: number }>;
    two: Array<{ model: number; measured: number }>;
}

export interface InstancesRow {
    n: number;
    parallel: number;
    /** The pinned runs' chain, modelled; undefined without them. */
    measuredChain: number | undefined;
    /** The 2^34 chain, expected, with the measured round trip and with none. */
    long: number;
    bound: number;
    /** Against N = 1, P = 4. */
    speedUp: number;
    wastedCoreSeconds: number;
}

export interface SizeRow extends RangeSizeRow {
    oneCoreSeconds: number;
    /** The round trip at P = 16 as a share of one range. */
    roundTripShare: number;
    /** Core-seconds P = 16 ranges in flight hold. */
    crashLossCoreSeconds: number;
}

export interface ModelWindowRow extends WindowRow {
    wastedCoreSeconds: number;
}

export interface ScaleModelFigures {
    /** Hashes per second of one core. */
    rate: number;
    /** The rate is the pinned probes' median on CPU 0; false: RECORDED_RATE. */
    rateMeasured: boolean;
    roundTrips: RoundTrips;
    check: ModelCheck | undefined;
    /** The defaults the Azure table and the windows are modelled at (src/config.ts). */
    defaults: { rangeSize: number; parallelRanges: number };
    instances: InstancesRow[];
    sizes: SizeRow[];
    windows: ModelWindowRow[];
}

function medianOf(samples: readonly number[]): number {
    const value = median(samples);
    if (value === undefined) throw new Error('the model needs at least one sample');
    return value;
}

/**
 * The round trip from the 55-range chains: per range × P (P in flight), less the growth over its first 55 ranges; the
 * growth from the 291-range chain at the widest window: the mean per range rises by growth × ranges / 2 / P.
 */
function roundTripOf(rows: readonly RangeCostRow[]): { backend: Backend; growth: number | undefined; start(parallel: number): number } {
    const backend: Backend = rows.some((r) => r.backend === 'extension') ? 'extension' : 'ts';
    const own = rows.filter((r) => r.backend === backend);
    const wide = own.find((r) => r.long !== undefined && r.long.perRangeMs.length > 0);
    const growth = wide?.long
        ? Math.max(0, (2 * wide.parallel * (medianOf(wide.long.perRangeMs) - medianOf(wide.perRangeMs))) / 1000 / (wide.long.ranges - wide.ranges))
        : undefined;
    return {
        backend,
        growth,
        start: (parallel) => {
            const nearest = own.reduce((a, b) => (Math.abs(b.parallel - parallel) < Math.abs(a.parallel - parallel) ? b : a));
            return Math.max(0, (medianOf(nearest.perRangeMs) * nearest.parallel) / 1000 - ((growth ?? 0) * nearest.ranges) / 2);
        },
    };
}

/** The model's figures from the range costs, the pinned runs (when they ran) and the defaults. */
export function scaleModelFigures(
    cost: RangeCostFigures,
    pinned: PinnedHostsFigures | undefined,
    defaults: { rangeSize: number; parallelRanges: number }
): ScaleModelFigures {
    const trips = roundTripOf(cost.rows);
    const rate = pinned ? medianOf(pinned.rates.core0) : RECORDED_RATE;
    const params = (cores: number, parallel: number, rangeSize: number, free = false): ModelParameters => ({
        rate,
        rangeSize,
        parallel,
        cores,
        roundTrip: free ? 0 : trips.start(parallel),
        growth: free ? 0 : (trips.growth ?? 0),
    });
    const expected = (chain: { blocks: number; mean: number }, m: ModelParameters) => modelExpectedRun(chain.blocks, chain.mean, m);

    let check: ModelCheck | undefined;
    if (pinned && pinned.one.length > 0 && pinned.two.length > 0) {
        // Each run against the model at the rate probed just before it.
        const against = (runs: PinnedRun[], cores: number) =>
            runs.map((r) => ({
                model: modelRun(pinned.attempts, { ...params(cores, pinned.setup.parallel, pinned.rangeSize), rate: r.rate }).seconds,
                measured: r.seconds,
            }));
        check = { one: against(pinned.one, 1), two: against(pinned.two, 2) };
    }

    const R = defaults.rangeSize;
    const longOne = expected(LONG_CHAIN, params(1, 4, R));
    const instances = CASES.map(([n, parallel]): InstancesRow => {
        const long = expected(LONG_CHAIN, params(n, parallel, R));
        return {
            n,
            parallel,
            measuredChain: pinned && pinned.attempts.length > 0 ? modelRun(pinned.attempts, params(n, parallel, R)).seconds : undefined,
            long: long.seconds,
            bound: expected(LONG_CHAIN, params(n, parallel, R, true)).seconds,
            speedUp: longOne.seconds / long.seconds,
            wastedCoreSeconds: long.wastedCoreSeconds,
        };
    });

    const sizes = SIZES.map((size): SizeRow => {
        const oneCoreSeconds = size / rate;
        return {
            size,
            oneCoreSeconds,
            slowCoreSeconds: size / (rate * SLOW_CORE_SHARE),
            roundTripShare: trips.start(16) / oneCoreSeconds,
            defaultChainSeconds: expected(DEFAULT_CHAIN, params(2, 4, size)).seconds,
            wideChainSeconds: expected(LONG_CHAIN, params(16, 16, size)).seconds,
            crashLossCoreSeconds: 16 * oneCoreSeconds,
        };
    });
    const windows = WINDOWS.map((parallel): ModelWindowRow => {
        const run = expected(DEFAULT_CHAIN, params(2, parallel, R));
        return { parallel, seconds: run.seconds, wastedCoreSeconds: run.wastedCoreSeconds };
    });

    return {
        rate,
        rateMeasured: pinned !== undefined,
        roundTrips: { backend: trips.backend, atStart: STATED_WINDOWS.map((parallel) => ({ parallel, seconds: trips.start(parallel) })), growth: trips.growth },
        check,
        defaults,
        instances,
        sizes,
        windows,
    };
}
