import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetedWait, DEFAULT_BACKOFF, MAX_READS_PER_20_S } from '../../src/workflow/budgetedWait';
import { FakeClock } from './helpers/fakes';

/** The default poll schedule of the budgeted wait: few status reads, and a quick run still seen quickly. */

async function readsIn(budgetMs: number, endsAtMs = Infinity): Promise<{ reads: number; seenAt: number }> {
    const clock = new FakeClock();
    let reads = 0;
    await budgetedWait({
        read: async () => {
            reads++;
            return clock.now() >= endsAtMs ? 'done' : 'running';
        },
        isFinal: (value) => value === 'done',
        budgetMs,
        clock,
    });
    return { reads, seenAt: clock.now() };
}

describe('the default poll schedule', () => {
    it(`reads the status at most ${MAX_READS_PER_20_S} times in a 20 s wait`, async () => {
        const { reads } = await readsIn(20_000);
        assert.ok(reads <= MAX_READS_PER_20_S, `${reads} reads`);
        assert.ok(reads >= 20, `${reads} reads: still polls through the whole budget`);
    });

    it('sees a run that ends early soon after its end, and a longer one within the longest pause', async () => {
        for (const end of [5, 50, 150, 400, 1000, 2500, 4500]) {
            const { seenAt } = await readsIn(20_000, end);
            // Each pause is 0.4 × the time waited so far + 15 ms (pauses 15 ms × 1.4^n), until the cap.
            const bound = Math.min(0.4 * end + DEFAULT_BACKOFF.firstDelayMs, DEFAULT_BACKOFF.maxDelayMs);
            assert.ok(seenAt - end <= bound + 1e-6, `a run ending at ${end} ms seen at ${seenAt} ms`);
        }
        // Past the ramp the pauses are even: an end is seen within one of them, wherever it falls.
        for (const end of [7_000, 11_111, 15_000, 19_000]) {
            const { seenAt } = await readsIn(20_000, end);
            assert.ok(seenAt - end <= DEFAULT_BACKOFF.maxDelayMs, `a run ending at ${end} ms seen at ${seenAt} ms`);
        }
    });
});
