/**
 * The rule RANGE_SIZE follows (docs/how-it-works.md, "Defaults and why"; test/infra/fanOutDefaults.test.ts holds
 * src/config.ts's default to it with the figures BENCHMARKS.md records). The bench only reports whether the
 * default still meets it with a run's own figures; it never picks a size.
 *
 * The rule: among the sizes whose range takes at most a tenth of `functionTimeout` on a core at a quarter of the
 * measured rate, each size's "worst" is the larger of its two modelled slowdowns against the best size of each
 * case (the default chain on one 2-core instance with P = 4; the 2^34 chain on 16 one-core instances with P = 16).
 * The default is the largest size whose worst is within 5% of the smallest worst: the inputs move by ±20% between
 * runs, and a larger range halves the scheduler actions (which the Durable Task Scheduler bills) and the history
 * every episode replays.
 */

/** host.json's `functionTimeout` (10 minutes; test/infra/fanOutDefaults.test.ts reads it there). */
export const FUNCTION_TIMEOUT_SECONDS = 600;
/** The longest a range may take on a slow core: a tenth of functionTimeout. */
export const MAX_SLOW_RANGE_SECONDS = FUNCTION_TIMEOUT_SECONDS / 10;
/** The slow core the bound is taken on: a quarter of the measured one-core rate. */
export const SLOW_CORE_SHARE = 0.25;
/** Sizes within this factor of the smallest worst slowdown count as equal; the largest of them is the default. */
export const WORST_TOLERANCE = 1.05;

/** One size's figures from the model (BENCHMARKS.md, Scale-out, "Defaults"). */
export interface RangeSizeRow {
    size: number;
    /** One range on a core at SLOW_CORE_SHARE of the rate, in seconds. */
    slowCoreSeconds: number;
    /** The default chain (4 blocks at difficulty 27, expected) on one 2-core instance, P = 4, in seconds. */
    defaultChainSeconds: number;
    /** The 2^34 chain on 16 one-core instances, P = 16, in seconds. */
    wideChainSeconds: number;
}

/** Each row's worst slowdown: the larger of its two cases against the best size of that case (over every row). */
export function worstSlowdowns(rows: readonly RangeSizeRow[]): number[] {
    const bestDefault = Math.min(...rows.map((r) => r.defaultChainSeconds));
    const bestWide = Math.min(...rows.map((r) => r.wideChainSeconds));
    return rows.map((r) => Math.max(r.defaultChainSeconds / bestDefault, r.wideChainSeconds / bestWide));
}

export const allowedSize = (row: RangeSizeRow) => row.slowCoreSeconds <= MAX_SLOW_RANGE_SECONDS;

export interface RangeSizeVerdict {
    met: boolean;
    /** The size's own row, undefined when the model did not take it. */
    row: RangeSizeRow | undefined;
    /** Its worst slowdown, and the smallest worst of the allowed sizes. */
    worst: number | undefined;
    bestWorst: number | undefined;
    /** It is short enough on a slow core. */
    allowed: boolean;
    /** It is within WORST_TOLERANCE of the best. */
    withinTolerance: boolean;
    /** A larger allowed size that is also within the tolerance, when there is one (the rule takes the larger). */
    larger: RangeSizeRow | undefined;
}

/** Whether `size` meets the rule among `rows`. */
export function checkRangeSize(size: number, rows: readonly RangeSizeRow[]): RangeSizeVerdict {
    const worst = worstSlowdowns(rows);
    const allowedWorst = rows.flatMap((r, k) => (allowedSize(r) ? [worst[k] as number] : []));
    const bestWorst = allowedWorst.length > 0 ? Math.min(...allowedWorst) : undefined;
    const within = (k: number) => bestWorst !== undefined && allowedSize(rows[k] as RangeSizeRow) && (worst[k] as number) <= bestWorst * WORST_TOLERANCE;
    const at = rows.findIndex((r) => r.size === size);
    const row = rows[at];
    const larger = rows.find((r, k) => r.size > size && within(k));
    const allowed = row !== undefined && allowedSize(row);
    const withinTolerance = at >= 0 && within(at);
    return { met: withinTolerance && larger === undefined, row, worst: worst[at], bestWorst, allowed, withinTolerance, larger };
}
