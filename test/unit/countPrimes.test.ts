import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrchestrationContext } from 'durable-functions';
import { COUNT_SEGMENT, type SegmentInput } from '../../src/jobs/primes/contracts';
import { countPrimesOrchestrator } from '../../src/jobs/primes/countPrimesOrchestrator';
import { countSegmentActivity, countSegmentOffThread } from '../../src/jobs/primes/countSegmentActivity';
import { countPrimesIn } from '../../src/jobs/primes/sieve';
import { COUNT_PRIMES_JOB } from '../../src/jobs/primes/job';
import { parseConfig } from '../../src/config';
import { PRIMES_BELOW, primesBelowByTrialDivision } from '../support/primeCounts';

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
    function run(input: unknown) {
        const statuses: unknown[] = [];
        const waves: SegmentInput[][] = [];
        const df = {
            currentUtcDateTime: new Date('2026-01-01T00:00:00.000Z'),
            getInput: () => input,
            setCustomStatus: (status: unknown) => statuses.push(status),
            callActivityWithRetry: (name: string, _retry: unknown, activityInput: SegmentInput) => ({ name, input: activityInput }),
            Task: { all: (tasks: Array<{ name: string; input: SegmentInput }>) => ({ all: tasks }) },
        };
        const generator = countPrimesOrchestrator()({ df } as unknown as OrchestrationContext);
        let step = generator.next();
        while (!step.done) {
            const wave = (step.value as unknown as { all: Array<{ name: string; input: SegmentInput }> }).all;
            assert.ok(wave.every((call) => call.name === COUNT_SEGMENT));
            waves.push(wave.map((call) => call.input));
            df.currentUtcDateTime = new Date(df.currentUtcDateTime.getTime() + 100);
            step = generator.next(wave.map((call) => countSegmentActivity(call.input)));
        }
        return { output: step.value, statuses, waves };
    }

    it('counts below 10^6 in segments, in_flight at a time, publishing the segments done after each wave', () => {
        const { output, statuses, waves } = run({ below: 10 ** 6, segment_size: 150_000, in_flight: 3 });
        assert.deepEqual(output, { below: 10 ** 6, count: 78_498, segments: 7, elapsed_ms: 300 });
        assert.deepEqual(waves.map((wave) => wave.length), [3, 3, 1]);
        assert.deepEqual(waves.flat().at(-1), { start: 900_000, end: 10 ** 6 });
        assert.deepEqual(statuses, [0, 3, 6, 7].map((done) => ({ segments_done: done, segments_total: 7 })));
    });

    it('fails on input out of its bounds', () => {
        assert.throws(() => run({ below: 1, segment_size: 10, in_flight: 1 }), /Invalid CountPrimes input/);
        assert.throws(() => run({ below: 100 }), /Invalid CountPrimes input/);
    });

    it('a start plans the fixed segment size and fan-out, and costs `below`', () => {
        const config = parseConfig({ TASKHUB_NAME: 'unittests', ENABLED_JOBS: 'count_primes' });
        const plan = COUNT_PRIMES_JOB.plan({ below: 10 ** 8 }, config);
        assert.deepEqual(plan, {
            input: { below: 10 ** 8, segment_size: 5_000_000, in_flight: 4 },
            matchOn: ['below'],
            cost: 10 ** 8,
            initialProgress: { segments_done: 0, segments_total: 20 },
        });
    });
});
