/**
 * Polls until a value is final or a time budget runs out: each status read is a storage transaction (or a scheduler
 * request) in Azure, so a wait spends few. The pauses grow by 1.4 from 15 ms for about the first second (a short run
 * is seen soon after its end), then stay at 680 ms: a block's remaining time is memoryless, so past the first second
 * an end is as likely at any moment, and even pauses see it soonest on average (340 ms) for the reads spent. A 20 s
 * wait makes 39 reads, at most 40 with timers that fire a little early (bench/statusReads.ts and bench/completionLag.ts measure reads and lag on both Durable
 * backends). The budget is a hard limit: no sleep and no read runs past it.
 */

export interface Clock {
    now(): number;
    /** Resolves after `ms`, or early when the signal aborts. */
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
    now: () => performance.now(),
    sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
            if (signal?.aborted) return resolve();
            const done = () => {
                clearTimeout(timer);
                signal?.removeEventListener('abort', done);
                resolve();
            };
            const timer = setTimeout(done, ms);
            signal?.addEventListener('abort', done, { once: true });
        }),
};

export interface BackoffOptions {
    /** First pause between reads. */
    firstDelayMs: number;
    /** Each pause is this many times the one before… */
    factor: number;
    /** …up to this. */
    maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { firstDelayMs: 15, factor: 1.4, maxDelayMs: 680 };

/** The most status reads DEFAULT_BACKOFF may make in a 20 s wait (held by a unit test). */
export const MAX_READS_PER_20_S = 40;

export interface BudgetedWaitOptions<T> {
    /** One read; undefined means "nothing to report yet". A read that throws counts as undefined. */
    read: () => Promise<T | undefined>;
    isFinal: (value: T) => boolean;
    budgetMs: number;
    /** Called with every value read, in order (progress notifications hang off this). */
    onValue?: (value: T) => void;
    /** Stops the wait early (the request was aborted, when the transport can tell). */
    signal?: AbortSignal;
    backoff?: BackoffOptions;
    clock?: Clock;
}

export interface BudgetedWaitOutcome<T> {
    /** The last value read, if any. */
    last: T | undefined;
    /** True when `last` is final; false when the budget ran out or the wait was aborted. */
    final: boolean;
}

const TIMED_OUT = Symbol('timed out');

export async function budgetedWait<T>(options: BudgetedWaitOptions<T>): Promise<BudgetedWaitOutcome<T>> {
    const clock = options.clock ?? systemClock;
    const backoff = options.backoff ?? DEFAULT_BACKOFF;
    const deadline = clock.now() + Math.max(0, options.budgetMs);
    let last: T | undefined;
    let delay = backoff.firstDelayMs;

    for (;;) {
        const remaining = deadline - clock.now();
        if (remaining <= 0 || options.signal?.aborted) return { last, final: false };
        const value = await readBefore(options.read, remaining, clock, options.signal);
        if (value === TIMED_OUT) return { last, final: false };
        if (value !== undefined) {
            last = value;
            options.onValue?.(value);
            if (options.isFinal(value)) return { last, final: true };
        }
        const left = deadline - clock.now();
        if (left <= 0 || options.signal?.aborted) return { last, final: false };
        await clock.sleep(Math.min(delay, left), options.signal);
        delay = Math.min(delay * backoff.factor, backoff.maxDelayMs);
    }
}

/** One read, abandoned if it has not answered within `ms` (a slow backend must not stretch the budget). */
async function readBefore<T>(
    read: () => Promise<T | undefined>,
    ms: number,
    clock: Clock,
    signal: AbortSignal | undefined
): Promise<T | undefined | typeof TIMED_OUT> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // A failed read is one that reported nothing; the caller's read logs its own errors.
    const pending = read().catch(() => undefined);
    try {
        return await Promise.race([pending, clock.sleep(ms, stop.signal).then((): typeof TIMED_OUT => TIMED_OUT)]);
    } finally {
        stop.abort();
        signal?.removeEventListener('abort', onAbort);
    }
}
