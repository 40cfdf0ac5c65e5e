import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrchestrationContext } from 'durable-functions';
import { ACTIVITY_MAX_ATTEMPTS, retryDelayMs } from '../../src/jobs/activityRetry';
import { rangeWindow } from '../../src/jobs/rangeWindow';
import { drive, highestFirst, lowestFirst, type FakeTask, type PickNext } from './helpers/windowDriver';

/** The sliding window of ranges in flight: answers taken in order whatever order they come in, each task scheduled once. */

const PIECE = 'Piece';

/** A seeded pick (a linear congruential generator), so a failing order can be replayed. */
function seededPick(seed: number): PickNext {
    let state = seed;
    return (inFlight) => {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        return inFlight[state % inFlight.length] as FakeTask;
    };
}

/** An orchestrator over `count` pieces that records the order answers are taken in and stops at `stopAt`. */
function windowOrchestrator(width: number, count: number, taken: number[], stopAt?: number) {
    return function* (context: OrchestrationContext) {
        return yield* rangeWindow<string>(context, {
            width,
            count,
            start: (index) => context.df.callActivity(PIECE, { index }),
            take(index, answer) {
                assert.deepEqual(answer, { echo: index });
                taken.push(index);
                return index === stopAt ? `stopped at ${index}` : undefined;
            },
        });
    };
}

const echo = (_name: string, input: unknown) => ({ echo: (input as { index: number }).index });
const indices = (inputs: unknown[]) => inputs.map((input) => (input as { index: number }).index);

describe('rangeWindow', () => {
    it('keeps `width` pieces in flight, dispatches in order, and takes the answers in order', () => {
        const taken: number[] = [];
        const run = drive(windowOrchestrator(3, 7, taken), { input: {}, answer: echo, pick: lowestFirst });
        assert.equal(run.output, undefined);
        assert.deepEqual(taken, [0, 1, 2, 3, 4, 5, 6]);
        assert.deepEqual(indices(run.dispatched), [0, 1, 2, 3, 4, 5, 6]);
        assert.equal(run.maxInFlight, 3);
        // The first fill at once; then one new piece per answer, beside a timer due now; the tail only waits.
        assert.deepEqual(run.yields, ['any(3)', 'task', 'any(1+timer)', 'task', 'any(1+timer)', 'task', 'any(1+timer)', 'task', 'any(1+timer)', 'task', 'task', 'task']);
    });

    it('takes answers in order when they come highest first, or in any seeded order, never over `width` in flight', () => {
        for (const pick of [highestFirst, ...[1, 2, 3, 4, 5, 6, 7, 8].map(seededPick)]) {
            for (const width of [1, 2, 5, 16]) {
                const taken: number[] = [];
                const run = drive(windowOrchestrator(width, 11, taken), { input: {}, answer: echo, pick });
                assert.deepEqual(taken, [...Array(11).keys()], `width ${width}`);
                assert.deepEqual(indices(run.dispatched), [...Array(11).keys()]);
                assert.equal(run.maxInFlight, Math.min(width, 11));
            }
        }
    });

    it('width 1 is the sequential walk: each piece yielded alone, no Task.any, no timer', () => {
        const taken: number[] = [];
        const run = drive(windowOrchestrator(1, 4, taken), { input: {}, answer: echo });
        assert.deepEqual(run.yields, ['task', 'task', 'task', 'task']);
        assert.equal(run.maxInFlight, 1);
    });

    it('a stop in a middle piece ends the window there, with the pieces above still out and none beyond the window', () => {
        const taken: number[] = [];
        const run = drive(windowOrchestrator(4, 100, taken, 5), { input: {}, answer: echo, pick: highestFirst });
        assert.equal(run.output, 'stopped at 5');
        assert.deepEqual(taken, [0, 1, 2, 3, 4, 5]);
        // Consecutive from 0, and with 4 in flight none above 5 + 3.
        const dispatched = indices(run.dispatched);
        assert.deepEqual(dispatched, [...dispatched.keys()]);
        assert.ok(dispatched.length > 6 && dispatched.length <= 9, `dispatched ${dispatched.join(',')}`);
        assert.ok(indices(run.answered).includes(6), 'highest first: a piece above the stop had answered, and was ignored');
    });

    it('takes answers already in without a timer: several answers of one episode make one refill', () => {
        const taken: number[] = [];
        // Highest first with 3 in flight: 2 and 1 answer before 0, so after 0 the next two are already in.
        const run = drive(windowOrchestrator(3, 3, taken), { input: {}, answer: echo, pick: highestFirst });
        assert.deepEqual(taken, [0, 1, 2]);
        assert.deepEqual(run.yields, ['any(3)', 'task', 'task', 'task']);
    });

    it('a failed piece fails the window when its turn comes, after the pieces below it; a failure above a stop is never seen', () => {
        const failing = (_name: string, input: unknown) => {
            const { index } = input as { index: number };
            if (index === 2) throw new Error('piece 2 failed');
            return { echo: index };
        };
        const taken: number[] = [];
        assert.throws(() => drive(windowOrchestrator(3, 10, taken), { input: {}, answer: failing, pick: highestFirst }), /piece 2 failed/);
        assert.deepEqual(taken, [0, 1]);

        const stopped: number[] = [];
        const run = drive(windowOrchestrator(4, 10, stopped, 1), { input: {}, answer: failing, pick: highestFirst });
        assert.equal(run.output, 'stopped at 1');
        assert.deepEqual(stopped, [0, 1]);
    });

    it('slowStart: piece 0 alone until it answers, then the full width', () => {
        const taken: number[] = [];
        const orchestrator = function* (context: OrchestrationContext) {
            return yield* rangeWindow<string>(context, {
                width: 3,
                slowStart: true,
                count: 6,
                start: (index) => context.df.callActivity(PIECE, { index }),
                take(index) {
                    taken.push(index);
                    return undefined;
                },
            });
        };
        const run = drive(orchestrator, { input: {}, answer: echo });
        assert.deepEqual(taken, [0, 1, 2, 3, 4, 5]);
        assert.deepEqual(run.yields.slice(0, 4), ['task', 'any(3)', 'task', 'any(1+timer)']);
        assert.equal(run.inFlightSnapshots[0]?.length, 1);
        assert.equal(run.maxInFlight, 3);
    });

    it('retries a piece that fails once: a durable timer exactly 2 s on, then a new call for that piece, and the window goes on', () => {
        const taken: number[] = [];
        let failed = false;
        const answer = (name: string, input: unknown) => {
            if ((input as { index: number }).index === 2 && !failed) {
                failed = true;
                throw new Error('piece 2 failed once');
            }
            return echo(name, input);
        };
        const run = drive(windowOrchestrator(1, 4, taken), { input: null, answer });
        assert.deepEqual(taken, [0, 1, 2, 3]);
        assert.deepEqual(indices(run.dispatched), [0, 1, 2, 2, 3], 'piece 2 called again, after its timer');
        assert.deepEqual(run.timerDelays, [retryDelayMs(1)]);
        assert.equal(retryDelayMs(1), 2000);
    });

    it('fails the window after the last attempt of a piece that always fails, the retries exactly 2 s then 4 s apart', () => {
        const dispatched: unknown[] = [];
        const delays: number[] = [];
        const answer = (name: string, input: unknown) => {
            dispatched.push(input);
            if ((input as { index: number }).index === 1) throw new Error('piece 1 always fails');
            return echo(name, input);
        };
        assert.throws(() => drive(windowOrchestrator(1, 3, []), { input: null, answer, onTimer: (ms) => delays.push(ms) }), /piece 1 always fails/);
        assert.deepEqual(indices(dispatched), [0, 1, 1, 1], `${ACTIVITY_MAX_ATTEMPTS} attempts of piece 1, none of piece 2`);
        assert.deepEqual(delays, [2000, 4000]);
    });

    it('refuses a width that is not a positive integer', () => {
        assert.throws(() => drive(windowOrchestrator(0, 3, []), { input: {}, answer: echo }), /width must be a positive integer/);
    });
});
