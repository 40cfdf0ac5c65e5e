/**
 * The wall-time model of one fanned-out MineChain run (bench/scaleOut.ts checks it against measured runs):
 * a list-scheduling simulation of MineChain's sliding window, block by block.
 *
 * - Block b needs k = floor(nonce / R) + 1 ranges; range 0 goes alone (MineChain's slow start), range i ≥ 1 is
 *   dispatched when every range up to max(0, i - P) has answered (the window slides when its lowest range
 *   answers, as MineChain's does).
 * - A dispatched range can start `d` later (its round trip: the orchestrator episode, the queue, the worker's
 *   pick-up and the answer's episode, measured with trivial ranges), on the first free core of the N·c,
 *   lowest range first (the search pool's order); it then takes R / rate, the hit's range only up to the hit.
 * - The block ends when the hit's range and every range below it have answered; ranges above it that had
 *   started are the waste (core-seconds), stopped there.
 *
 * With d measured as P × (wall time per range of a trivial chain with P in flight), the model gives that chain
 * back exactly; the hashing alone gives W / (min(N·c, P) · rate). P bounds the cores one workflow can use.
 * `growth` adds the replay of a history that lengthens with every range.
 */

export interface ModelParameters {
    /** Hashes per second of one core. */
    rate: number;
    /** Nonces per range (RANGE_SIZE). */
    rangeSize: number;
    /** Ranges in flight (PARALLEL_RANGES). */
    parallel: number;
    /** Cores of all instances together, N·c. */
    cores: number;
    /** One range's round trip with `parallel` in flight, trivial work, in seconds, at the start of a run. */
    roundTrip: number;
    /**
     * Seconds the round trip grows by per range already in the run's history: every episode replays the whole
     * history (blocks do not continue-as-new), so a run of many small ranges slows down as it goes. Default 0.
     */
    growth?: number;
}

export interface ModelResult {
    seconds: number;
    /** Core-seconds spent on ranges above a block's hit. */
    wastedCoreSeconds: number;
    ranges: number;
}

/** The modelled run of a chain whose blocks take `attempts[b]` = nonce + 1 attempts each. */
export function modelRun(attempts: readonly number[], m: ModelParameters): ModelResult {
    let seconds = 0;
    let wastedCoreSeconds = 0;
    let ranges = 0;
    for (const w of attempts) {
        const block = modelBlock(w, m, ranges);
        seconds += block.seconds;
        wastedCoreSeconds += block.wastedCoreSeconds;
        ranges += block.ranges;
    }
    return { seconds, wastedCoreSeconds, ranges };
}

/**
 * The expected run of `blocks` blocks at a difficulty whose block takes `meanAttempts` on average (2^difficulty):
 * a block's nonce is geometric, so each block is modelled at the 16 midpoint quantiles of the exponential
 * distribution with that mean and the results averaged. That puts the hits at every position in their ranges
 * and in the window, as real blocks do, so the idle cores at a block's end and the waste above its hit count
 * as they do on average.
 */
export function modelExpectedRun(blocks: number, meanAttempts: number, m: ModelParameters): ModelResult {
    const quantiles = Array.from({ length: 16 }, (_, j) => Math.max(1, Math.round(-meanAttempts * Math.log(1 - (j + 0.5) / 16))));
    // Block b starts with the ranges of the blocks before it in the history: b times the mean block's.
    const meanRanges = quantiles.reduce((sum, w) => sum + Math.floor((w - 1) / m.rangeSize) + 1, 0) / quantiles.length;
    let seconds = 0;
    let wastedCoreSeconds = 0;
    for (let b = 0; b < blocks; b++) {
        const perBlock = quantiles.map((w) => modelBlock(w, m, b * meanRanges));
        seconds += perBlock.reduce((sum, r) => sum + r.seconds, 0) / perBlock.length;
        wastedCoreSeconds += perBlock.reduce((sum, r) => sum + r.wastedCoreSeconds, 0) / perBlock.length;
    }
    return { seconds, wastedCoreSeconds, ranges: blocks * meanRanges };
}

/** One block, `before` ranges into the run's history. */
function modelBlock(attempts: number, m: ModelParameters, before: number): ModelResult {
    const { rate, rangeSize: R, parallel: P, roundTrip, growth = 0 } = m;
    const k = Math.floor((attempts - 1) / R) + 1;
    const full = R / rate;
    const coreFree = new Array<number>(Math.max(1, m.cores)).fill(0);
    /** answeredUpTo[i]: when ranges 0..i have all answered. */
    const answeredUpTo: number[] = [];
    const started: Array<{ start: number; finish: number }> = [];
    let end = Number.POSITIVE_INFINITY;
    // Ranges above the hit are dispatched too while the window holds them: k - 1 + P ranges at most (none for a first-range hit).
    for (let i = 0; i < k - 1 + P; i++) {
        // MineChain sends a block's first range alone (rangeWindow's slowStart) and opens the window once it answers.
        const dispatched = i === 0 ? 0 : (answeredUpTo[Math.max(0, i - P)] as number);
        if (dispatched >= end) break;
        const core = indexOfMin(coreFree);
        const start = Math.max(dispatched + roundTrip + growth * (before + i), coreFree[core] as number);
        const finish = start + (i === k - 1 ? (attempts - (k - 1) * R) / rate : full);
        coreFree[core] = finish;
        answeredUpTo.push(Math.max(finish, i > 0 ? (answeredUpTo[i - 1] as number) : 0));
        started.push({ start, finish });
        if (i === k - 1) end = answeredUpTo[i] as number;
    }
    let wasted = 0;
    for (const range of started.slice(k)) if (range.start < end) wasted += Math.min(range.finish, end) - range.start;
    return { seconds: end, wastedCoreSeconds: wasted, ranges: k };
}

function indexOfMin(values: readonly number[]): number {
    let best = 0;
    for (let i = 1; i < values.length; i++) if ((values[i] as number) < (values[best] as number)) best = i;
    return best;
}
