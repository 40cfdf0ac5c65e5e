import type { OrchestrationContext, Task } from 'durable-functions';
import { ACTIVITY_MAX_ATTEMPTS, retryDelayMs } from './activityRetry';

/**
 * Ranges in flight: a sliding window for orchestrators over consecutive pieces of work 0, 1, 2, …, with up
 * to `width` dispatched at once and their answers taken strictly in order, so the outcome is the sequential
 * one whatever order the answers come in. When the lowest outstanding piece answers, the next is dispatched.
 *
 * Replay-safe and schedule-once. durable-functions schedules every child of a yielded Task.any/Task.all
 * again, already scheduled or not (azure-functions-durable-js#574), so a compound here only ever holds
 * pieces never yielded before; an outstanding piece is waited for by yielding it alone, which schedules
 * nothing. Refilling the window without waiting for the new piece needs something that answers at once
 * beside it: a durable timer due now (one extra orchestrator episode per refill, no activity).
 *
 * The window retries a failed piece itself (ACTIVITY_MAX_ATTEMPTS attempts, src/jobs/activityRetry.ts), with a
 * durable timer and a new plain call when its turn comes, and `start` must give plain calls. callActivityWithRetry
 * beside other tasks in flight is not replay-safe on the real extension: one failed attempt under a fanned-out run
 * failed the orchestration with "Non-Deterministic workflow detected: … scheduled a timer task with sequence
 * number 82" (test/e2e/rangeFaults.test.ts reproduces it), as the retry's timer and rescheduled call are
 * numbered by the extension when the timer fires, and by durable-functions when it reads the event.
 */

/** What to do with the answer of piece `index`: `undefined` goes on to the next piece, anything else ends the window with it. */
export type TakeAnswer<R> = (index: number, answer: unknown) => R | undefined;

export interface WindowOptions<R> {
    /** Most pieces in flight, at least 1; 1 is the sequential walk, yielding each piece alone. */
    width: number;
    /**
     * Piece 0 alone until it answers, then `width`: for searches where the first piece often holds the answer
     * (an easy block), so that nothing above it is dispatched in vain.
     */
    slowStart?: boolean;
    /** Pieces in all (0 to count − 1). */
    count: number;
    /**
     * The task of piece `index`, a plain activity call (no WithRetry: the window retries); called in order when
     * the piece is dispatched, and again for each retry of it.
     */
    start: (index: number) => Task;
    take: TakeAnswer<R>;
}

/**
 * Yields the pieces' tasks as described above and returns what `take` ended with, or undefined when every
 * piece was taken. A failed piece throws when its turn comes (a piece above a stopping answer never does);
 * pieces above the stop are left running unawaited (their answers are ignored by the backend).
 */
export function* rangeWindow<R>(context: OrchestrationContext, options: WindowOptions<R>): Generator<Task, R | undefined, unknown> {
    const { count, start, take } = options;
    if (!Number.isSafeInteger(options.width) || options.width < 1) throw new RangeError(`width must be a positive integer, got ${options.width}`);
    const width = options.width;
    // outstanding[k] is piece taken + k.
    const outstanding: Task[] = [];
    let dispatched = 0;
    for (let taken = 0; taken < count; taken++) {
        const fresh: Task[] = [];
        // Several answers in one episode: take those already in before refilling, one timer for them all. Task
        // states follow the history's order of events, so this decides the same way on every replay.
        const lowestIn = outstanding[0] !== undefined && (outstanding[0].isCompleted || outstanding[0].isFaulted);
        const open = options.slowStart === true && taken === 0 ? 1 : width;
        while (!lowestIn && dispatched < count && dispatched - taken < open) {
            const task = start(dispatched++);
            outstanding.push(task);
            fresh.push(task);
        }
        if (fresh.length > 1 && fresh.length === outstanding.length) {
            // The first fill: the lowest is among them, so waiting for any of them loses nothing.
            yield context.df.Task.any(fresh);
        } else if (fresh.length > 0 && fresh.length < outstanding.length) {
            // A refill: the pieces below are older, so the new one must not hold the wait; the timer answers at once.
            yield context.df.Task.any([...fresh, context.df.createTimer(context.df.currentUtcDateTime)]);
        }
        const lowest = outstanding.shift();
        if (lowest === undefined) throw new Error('rangeWindow: no piece outstanding'); // unreachable: taken < dispatched
        const answer: unknown = yield* answerOf(context, lowest, () => start(taken));
        const outcome = take(taken, answer);
        if (outcome !== undefined) return outcome;
    }
    return undefined;
}

/**
 * The answer of a dispatched piece, retried while attempts are left: each retry waits on a durable timer, then
 * yields a new call alone, so it schedules exactly what the extension records (a timer, then one call).
 */
function* answerOf(context: OrchestrationContext, first: Task, again: () => Task): Generator<Task, unknown, unknown> {
    let task = first;
    for (let attempt = 1; ; attempt++) {
        try {
            return yield task;
        } catch (error) {
            if (attempt >= ACTIVITY_MAX_ATTEMPTS) throw error;
            const due = new Date(context.df.currentUtcDateTime.getTime() + retryDelayMs(attempt));
            yield context.df.createTimer(due);
            task = again();
        }
    }
}
