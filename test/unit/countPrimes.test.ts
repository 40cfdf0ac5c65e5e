import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COUNT_SEGMENT, type SegmentInput } from '../../src/jobs/primes/contracts';
import { countPrimesOrchestrator } from '../../src/jobs/primes/countPrimesOrchestrator';
import { countSegmentActivity, countSegmentOffThread } from '../../src/jobs/primes/countSegmentActivity';
import { countPrimesIn } from '../../src/jobs/primes/sieve';
import { COUNT_PRIMES_JOB } from '../../src/jobs/primes/job';
import { parseConfig } from '../../src/config';
import { PRIMES_BELOW, primesBelowByTrialDivision } from '@mcp-mining/testkit';
import { drive, highestFirst, lowestFirst, type PickNext } from './helpers/windowDriver';

/** The count_primes job: its sieve against known π(x), its activity's bounds, its orchestration's fan-out and progress. */

describe('countPrimesIn', () => {
    it('gives the known π(x) below powers of ten up to 10^7', () => {
        for (const [below, count] of PRIMES_BELOW) if (below <= 10 ** 7) assert.equal(countPrimesIn(0, below), count, `below ${below}`);
    });

    it('agrees with trial division on every small range, and segments add up', () => {
        for (let below = 0; below <= 300; below++) assert.equal(countPrimesIn(0, below), primesBelowByTrialDivision(below), `below ${below}`);
        for (const [start, end] of [[0, 1], [2, 3], [3, 4], [4, 5], [97, 98], [1, 2], [90, 110]] as const) {
            assert.equal(countPrimesIn(start, end), primesBelowByTrialDivision(end) - primesBelowByTrialDivision(start), `[${start}, ${end})`);
        }
        let sum = 0;
        for (let start = 0; start < 10 ** 6; start += 77_777) sum += countPrimesIn(start, Math.min(start + 77_777, 10 ** 6));
        assert.equal(sum, 78_498);
    });

    it('counts a segment far from 0 exactly (the primes in [10^9, 10^9 + 1000): 45 of them, per trial division)', () => {
        let expected = 0;
        for (let n = 1e9; n < 1e9 + 1000; n++) {
            let prime = n % 2 !== 0;
            for (let d = 3; prime && d * d <= n; d += 2) if (n % d === 0) prime = false;
            if (prime) expected++;
        }
        assert.equal(countPrimesIn(1e9, 1e9 + 1000), expected);
    });
});

describe('CountPrimeSegment', () => {
    it('answers its range with the count, on this thread and (as registered) in a worker thread', async () => {
        assert.deepEqual(countSegmentActivity({ start: 0, end: 100 }), { start: 0, end: 100, count: 25 });
        assert.deepEqual(await countSegmentOffThread({ start: 0, end: 10 ** 6 }), { start: 0, end: 10 ** 6, count: 78_498 });
        await assert.rejects(countSegmentOffThread({ start: 5, end: 5 }), /Invalid CountPrimeSegment input/);
    });

    it('refuses bad input with a message that names the bounds', () => {
        for (const input of [null, { start: -1, end: 5 }, { start: 5, end: 5 }, { start: 0, end: 60_000_001 }, { start: 0.5, end: 4 }]) {
            assert.throws(() => countSegmentActivity(input), /Invalid CountPrimeSegment input: start must be a non-negative integer/);
        }
    });
});

describe('CountPrimes orchestration', () => {
    function run(input: unknown, pick: PickNext = lowestFirst) {
        const record = drive(countPrimesOrchestrator(), {
            input,
            answer: (name, segment) => {
                assert.equal(name, COUNT_SEGMENT);
                return countSegmentActivity(segment);
            },
            pick,
        });
        return { output: record.output, statuses: record.customStatuses, record };
    }

    it('counts below 10^6 in segments, in_flight at a time in a sliding window, publishing the segments taken in order', () => {
        for (const pick of [lowestFirst, highestFirst]) {
            const { output, statuses, record } = run({ below: 10 ** 6, segment_size: 150_000, in_flight: 3 }, pick);
            assert.equal((output as { count: number }).count, 78_498);
            assert.equal((output as { segments: number }).segments, 7);
            assert.equal(record.maxInFlight, 3);
            assert.deepEqual(record.dispatched.at(-1), { start: 900_000, end: 10 ** 6 });
            assert.deepEqual((record.dispatched as SegmentInput[]).map((s) => s.start), [0, 1, 2, 3, 4, 5, 6].map((k) => k * 150_000));
            assert.deepEqual(statuses, [0, 1, 2, 3, 4, 5, 6, 7].map((done) => ({ segments_done: done, segments_total: 7 })));
        }
        // Lowest first: the window refills as each segment is taken (one new one per answer), not in waves.
        const { record } = run({ below: 10 ** 6, segment_size: 150_000, in_flight: 3 });
        assert.deepEqual(record.yields.slice(0, 3), ['any(3)', 'task', 'any(1+timer)']);
    });

    it('stops at its time limit, on its own clock, between segments (its work is fixed by below)', () => {
        // The driver moves the orchestration's clock 100 ms per answered segment: past 1 s at the eleventh.
        assert.throws(() => run({ below: 10 ** 6, segment_size: 50_000, in_flight: 1, time_limit_seconds: 1 }), /time_limit: .*time limit of 1 s/);
        assert.equal((run({ below: 10 ** 6, segment_size: 50_000, in_flight: 1, time_limit_seconds: 10 }).output as { count: number }).count, 78_498);
    });

    it('fails on input out of its bounds', () => {
        assert.throws(() => run({ below: 1, segment_size: 10, in_flight: 1 }), /Invalid CountPrimes input/);
        assert.throws(() => run({ below: 100 }), /Invalid CountPrimes input/);
    });

    it('a start plans the fixed segment size and PARALLEL_RANGES in flight (4 by default), and costs `below`', () => {
        const plan8 = COUNT_PRIMES_JOB.plan({ below: 10 ** 8 }, parseConfig({ TASKHUB_NAME: 'unittests', ENABLED_JOBS: 'count_primes', PARALLEL_RANGES: '8' }));
        assert.equal(plan8.input.in_flight, 8);
        const config = parseConfig({ TASKHUB_NAME: 'unittests', ENABLED_JOBS: 'count_primes' });
        const plan = COUNT_PRIMES_JOB.plan({ below: 10 ** 8 }, config);
        assert.deepEqual(plan, {
            input: { below: 10 ** 8, segment_size: 5_000_000, in_flight: 4, time_limit_seconds: 7200 },
            matchOn: ['below'],
            cost: 10 ** 8,
            initialProgress: { segments_done: 0, segments_total: 20 },
        });
    });
});
