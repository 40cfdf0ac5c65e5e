import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetedWait } from '../../src/workflow/budgetedWait';
import { FakeClock } from './helpers/fakes';

const BACKOFF = { firstDelayMs: 10, factor: 2, maxDelayMs: 100 };

describe('budgetedWait', () => {
    it('returns the first final value without sleeping', async () => {
        const clock = new FakeClock();
        const outcome = await budgetedWait({ read: async () => 'done', isFinal: () => true, budgetMs: 1000, clock, backoff: BACKOFF });
        assert.deepEqual(outcome, { last: 'done', final: true });
        assert.deepEqual(clock.sleeps, []);
    });

    it('polls quickly at first, backs off geometrically to the cap, and reports every value', async () => {
        const clock = new FakeClock();
        const seen: number[] = [];
        let reads = 0;
        const outcome = await budgetedWait({
            read: async () => ++reads,
            isFinal: (n) => n === 8,
            onValue: (n) => seen.push(n),
            budgetMs: 10_000,
            clock,
            backoff: BACKOFF,
        });
        assert.deepEqual(outcome, { last: 8, final: true });
        assert.deepEqual(clock.sleeps, [10, 20, 40, 80, 100, 100, 100]);
        assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('never sleeps past the budget and reports the last value as not final', async () => {
        const clock = new FakeClock();
        // 230 is not a sum of whole pauses (10 + 20 + 40 + 80 = 150, + 100 = 250): the last pause is cut to fit.
        const outcome = await budgetedWait({ read: async () => 'running', isFinal: () => false, budgetMs: 230, clock, backoff: BACKOFF });
        assert.deepEqual(outcome, { last: 'running', final: false });
        assert.equal(clock.time, 230);
        assert.deepEqual(clock.sleeps, [10, 20, 40, 80, 80]);
    });

    it('gives a read only what is left of the budget', async () => {
        const clock = new FakeClock();
        let reads = 0;
        // The first read answers at once; the second never does, and is abandoned when the budget ends.
        const outcome = await budgetedWait({
            read: () => (++reads === 1 ? Promise.resolve('running') : new Promise<string>(() => undefined)),
            isFinal: () => false,
            budgetMs: 100,
            clock,
            backoff: BACKOFF,
        });
        assert.deepEqual(outcome, { last: 'running', final: false });
        assert.equal(clock.time, 100);
        assert.deepEqual(clock.sleeps, [10, 90]);
    });

    it('abandons a read that would outlast the budget', async () => {
        const clock = new FakeClock();
        // The read never settles; the wait still ends, at the budget.
        const outcome = await budgetedWait({ read: () => new Promise<string>(() => undefined), isFinal: () => true, budgetMs: 300, clock });
        assert.deepEqual(outcome, { last: undefined, final: false });
        assert.equal(clock.time, 300);
        assert.deepEqual(clock.sleeps, [300]);
    });

    it('treats "nothing yet" and failed reads as not final and keeps the last real value', async () => {
        const clock = new FakeClock();
        const answers: Array<() => Promise<string | undefined>> = [
            async () => 'running',
            async () => undefined,
            async () => {
                throw new Error('backend hiccup');
            },
        ];
        let k = 0;
        const outcome = await budgetedWait({
            read: () => (answers[k++] ?? (async () => undefined))(),
            isFinal: (v) => v === 'done',
            budgetMs: 100,
            clock,
            backoff: BACKOFF,
        });
        assert.deepEqual(outcome, { last: 'running', final: false });
    });

    it('a zero budget does not wait at all', async () => {
        const clock = new FakeClock();
        let reads = 0;
        const outcome = await budgetedWait({ read: async () => ++reads, isFinal: () => true, budgetMs: 0, clock });
        assert.deepEqual(outcome, { last: undefined, final: false });
        assert.equal(reads, 0);
    });

    it('stops when the signal aborts', async () => {
        const clock = new FakeClock();
        const controller = new AbortController();
        let reads = 0;
        const outcome = await budgetedWait({
            read: async () => {
                if (++reads === 3) controller.abort();
                return reads;
            },
            isFinal: () => false,
            budgetMs: 60_000,
            signal: controller.signal,
            clock,
        });
        assert.deepEqual(outcome, { last: 3, final: false });
    });

    it('with the real clock, sees a quick end quickly (smoke, no timing asserted)', async () => {
        const endsAt = Date.now() + 50;
        const outcome = await budgetedWait({ read: async () => Date.now() >= endsAt, isFinal: (done) => done, budgetMs: 5000 });
        assert.equal(outcome.final, true);
    });
});
