/**
 * The rule PARALLEL_RANGES follows (docs/how-it-works.md, "Defaults and why"; test/infra/fanOutDefaults.test.ts
 * holds src/config.ts's default to it with the figures BENCHMARKS.md records). The bench only reports whether
 * the default still meets it with a run's own figures; it never picks a window.
 *
 * The rule: the smallest window that both keeps one 2-core instance busy on the default chain (its modelled run
 * at the default RANGE_SIZE within 2% of the best window's) and lets one workflow alone spread over two
 * instances of the default size (the scale controller gives a workflow ceil(P / slots) instances, so P is at
 * least 2 × the activity slots of a 2,048 MB instance).
 */

/** Windows whose modelled run is within this factor of the best keep the instance busy. */
export const BUSY_TOLERANCE = 1.02;
/** Activity slots of the default instance (2,048 MB): SLOTS_BY_MEMORY_MB in infra/hooks/stage-package.mjs. */
export const DEFAULT_INSTANCE_SLOTS = 2;
/** How many instances of the default size one workflow alone must be able to reach. */
export const INSTANCES_PER_WORKFLOW = 2;

/** One window's figure from the model (BENCHMARKS.md, Scale-out, "Defaults"). */
export interface WindowRow {
    parallel: number;
    /** The default chain at the default RANGE_SIZE on one 2-core instance, in seconds. */
    seconds: number;
}

export interface ParallelRangesVerdict {
    met: boolean;
    /** The window's own row, undefined when the model did not take it. */
    row: WindowRow | undefined;
    /** The best window's run, in seconds. */
    best: number;
    /** Within BUSY_TOLERANCE of the best. */
    busy: boolean;
    /** At least INSTANCES_PER_WORKFLOW × slots. */
    spreads: boolean;
    /** The smallest busy window, whether or not it spreads. */
    smallestBusy: WindowRow | undefined;
    /** A smaller window that also meets both conditions, when there is one (the rule takes the smaller). */
    smaller: WindowRow | undefined;
}

export const spreadsOver = (parallel: number, slots: number) => parallel >= INSTANCES_PER_WORKFLOW * slots;

/** Whether `parallel` meets the rule among `rows`, with `slots` activity slots per default instance. */
export function checkParallelRanges(parallel: number, rows: readonly WindowRow[], slots = DEFAULT_INSTANCE_SLOTS): ParallelRangesVerdict {
    const best = Math.min(...rows.map((r) => r.seconds));
    const isBusy = (r: WindowRow) => r.seconds <= best * BUSY_TOLERANCE;
    const sorted = [...rows].sort((a, b) => a.parallel - b.parallel);
    const row = rows.find((r) => r.parallel === parallel);
    const busy = row !== undefined && isBusy(row);
    const spreads = spreadsOver(parallel, slots);
    const smaller = sorted.find((r) => r.parallel < parallel && isBusy(r) && spreadsOver(r.parallel, slots));
    return { met: busy && spreads && smaller === undefined, row, best, busy, spreads, smallestBusy: sorted.find(isBusy), smaller };
}
