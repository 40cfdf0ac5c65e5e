import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrchestrationContext } from 'durable-functions';
import { GENESIS, blockHash, meetsDifficulty, blockDigest } from '../../src/jobs/mining/hashRule';
import { scanRange } from '../../src/jobs/mining/scan';
import { findNonceSerial } from '../support/serialSearch';
import { MINE_BLOCK, NONCE_RANGE_SIZE, type Block, type MineBlockInput } from '../../src/jobs/mining/contracts';
import { mineBlockActivity, type RangeSearch } from '../../src/jobs/mining/mineBlockActivity';
import { mineChainOrchestrator } from '../../src/jobs/mining/mineChainOrchestrator';
import { MINING } from '../../src/jobs/mining/job';
import { parseConfig } from '../../src/config';
import { drive, highestFirst, lowestFirst, type FakeTask, type PickNext } from './helpers/windowDriver';
import { LimitReached } from '../../src/jobs/limits';

interface ScheduledCall {
    name: string;
    input: unknown;
}

/** The slice of the orchestration context MineChain uses, recording what it does. */
function fakeContext(input: unknown) {
    const customStatuses: unknown[] = [];
    const df = {
        currentUtcDateTime: new Date('2026-01-01T00:00:00.000Z'),
        getInput: () => input,
        setCustomStatus: (status: unknown) => customStatuses.push(status),
        callActivity: (name: string, activityInput: unknown): ScheduledCall => ({ name, input: activityInput }),
    };
    // A test seam: the generator only touches these members of the real context.
    return { context: { df } as unknown as OrchestrationContext, df, customStatuses };
}

/** The search over one range on this thread, with the plain rule's hash. */
const serialRangeSearch: RangeSearch = async (r) => {
    const nonce = scanRange(r.index, r.previousHash, r.difficulty, r.start, r.end);
    return nonce === undefined ? undefined : { nonce, hash: blockHash(r.index, r.previousHash, nonce) };
};

/** Runs the generator to the end the way the Durable replay does, answering each activity call. */
async function run(input: unknown, answer: (call: ScheduledCall) => Promise<unknown>, rangeSize?: number) {
    const { context, df, customStatuses } = fakeContext(input);
    const calls: ScheduledCall[] = [];
    const answers: unknown[] = [];
    const generator = mineChainOrchestrator(16, rangeSize)(context);
    let step = generator.next();
    while (!step.done) {
        const call = step.value as unknown as ScheduledCall;
        calls.push(call);
        const result = await answer(call);
        answers.push(result);
        df.currentUtcDateTime = new Date(df.currentUtcDateTime.getTime() + 250);
        step = generator.next(result);
    }
    return { output: step.value, calls, answers, customStatuses };
}

type Mined = { difficulty: number; total_attempts: number; elapsed_ms: number; blocks: Block[] };

/** The chain as the serial search mines it. */
function serialChain(difficulty: number, blocks: number): Block[] {
    const chain: Block[] = [];
    let previous = GENESIS;
    for (let index = 0; index < blocks; index++) {
        const nonce = findNonceSerial(index, previous, difficulty);
        const hash = blockHash(index, previous, nonce);
        chain.push({ index, previous_hash: previous, nonce, hash });
        previous = hash;
    }
    return chain;
}

/** The calls MineChain must make for `chain`: consecutive ranges from 0 up to the one with the nonce. */
function expectedCalls(chain: Block[], difficulty: number, rangeSize: number): ScheduledCall[] {
    return chain.flatMap((block) => {
        const calls: ScheduledCall[] = [];
        for (let start = 0; start <= block.nonce; start += rangeSize) {
            const input: MineBlockInput = { index: block.index, previous_hash: block.previous_hash, difficulty, start, end: start + rangeSize };
            calls.push({ name: MINE_BLOCK, input });
        }
        return calls;
    });
}

describe('MineChain orchestration', () => {
    it('chains MineBlock calls, publishes progress before and after each block, and sums the work', async () => {
        const activity = mineBlockActivity(32, serialRangeSearch);
        const { output, calls, customStatuses } = await run({ difficulty: 8, blocks: 3 }, (call) => activity(call.input));

        assert.deepEqual(customStatuses, [
            { blocks_done: 0, blocks_total: 3 },
            { blocks_done: 1, blocks_total: 3 },
            { blocks_done: 2, blocks_total: 3 },
            { blocks_done: 3, blocks_total: 3 },
        ]);
        // At difficulty 8 every nonce lies in the first production range: one call per block.
        assert.equal(calls.length, 3);
        const result = output as Mined;
        let previous = GENESIS;
        result.blocks.forEach((block, i) => {
            assert.deepEqual(calls[i], {
                name: MINE_BLOCK,
                input: { index: i, previous_hash: previous, difficulty: 8, start: 0, end: NONCE_RANGE_SIZE },
            });
            assert.equal(block.index, i);
            assert.equal(block.previous_hash, previous);
            assert.equal(block.nonce, findNonceSerial(i, previous, 8));
            assert.equal(block.hash, blockHash(i, previous, block.nonce));
            assert.ok(meetsDifficulty(blockDigest(i, previous, block.nonce), 8));
            previous = block.hash;
        });
        assert.equal(result.difficulty, 8);
        assert.equal(result.total_attempts, result.blocks.reduce((sum, b) => sum + b.nonce + 1, 0));
        // Three activity round trips of 250 ms of orchestration time each.
        assert.equal(result.elapsed_ms, 750);
    });

    it('mines a block over consecutive ranges from 0, with the serial search result and progress per block', async () => {
        for (const [difficulty, rangeSize] of [[6, 1], [8, 7], [9, 64], [10, 200], [11, 333]] as const) {
            const activity = mineBlockActivity(32, serialRangeSearch, rangeSize);
            const { output, calls, customStatuses } = await run({ difficulty, blocks: 3 }, (call) => activity(call.input), rangeSize);
            const chain = serialChain(difficulty, 3);
            const label = `d=${difficulty} range=${rangeSize}`;
            const result = output as Mined;
            assert.deepEqual(result.blocks, chain, label);
            assert.deepEqual(calls, expectedCalls(chain, difficulty, rangeSize), label);
            assert.ok(calls.length > 3, `${label}: some block spans several ranges`);
            assert.equal(result.total_attempts, chain.reduce((sum, b) => sum + b.nonce + 1, 0), label);
            assert.equal(result.elapsed_ms, 250 * calls.length, label);
            // Progress stays per block (blocks_done of blocks_total, docs/contract.md): nothing is published per range.
            assert.deepEqual(customStatuses, [0, 1, 2, 3].map((done) => ({ blocks_done: done, blocks_total: 3 })), label);
        }
    });

    it('finds a nonce that is exactly the first or exactly the last of a range', async () => {
        const nonce = findNonceSerial(0, GENESIS, 8);
        assert.equal(nonce, 339);
        // 339 = 3 × 113 starts the fourth range of 113; 340 = 4 × 85, so 339 ends the fourth range of 85.
        for (const [rangeSize, ranges] of [[113, [[0, 113], [113, 226], [226, 339], [339, 452]]], [85, [[0, 85], [85, 170], [170, 255], [255, 340]]]] as const) {
            const activity = mineBlockActivity(32, serialRangeSearch, rangeSize);
            const { output, calls } = await run({ difficulty: 8, blocks: 1 }, (call) => activity(call.input), rangeSize);
            assert.deepEqual(
                calls.map((call) => [(call.input as MineBlockInput).start, (call.input as MineBlockInput).end]),
                ranges,
                `range=${rangeSize}`
            );
            assert.equal((output as Mined).blocks[0]?.nonce, nonce, `range=${rangeSize}`);
        }
    });

    it('is deterministic: a replay fed the recorded answers schedules the same calls and returns the same result', async () => {
        const activity = mineBlockActivity(32, serialRangeSearch, 50);
        const first = await run({ difficulty: 9, blocks: 2 }, (call) => activity(call.input), 50);
        let at = 0;
        const replay = await run({ difficulty: 9, blocks: 2 }, async () => first.answers[at++], 50);
        assert.deepEqual(replay.calls, first.calls);
        assert.deepEqual(replay.output, first.output);
        assert.deepEqual(replay.customStatuses, first.customStatuses);
    });

    it('refuses an answer for another range or block instead of skipping nonces', async () => {
        const found = (block: Partial<Block>) => ({ found: true, block: { index: 0, previous_hash: GENESIS, nonce: 5, hash: 'a'.repeat(64), ...block } });
        const wrongAnswers: Array<(input: MineBlockInput) => unknown> = [
            (input) => ({ found: false, start: input.start, end: input.end - 1 }),
            (input) => ({ found: false, start: input.start + 1, end: input.end }),
            (input) => found({ nonce: input.end }),
            () => found({ index: 1 }),
            () => found({ previous_hash: 'x' }),
        ];
        for (const wrong of wrongAnswers) {
            await assert.rejects(
                run({ difficulty: 4, blocks: 1 }, async (call) => wrong(call.input as MineBlockInput), 64),
                /MineBlock answered for another block or range than block 0, nonces \[0, 64\)/
            );
        }
    });

    it('passes an out-of-range difficulty to MineBlock, whose error fails the workflow', async () => {
        const activity = mineBlockActivity(32, serialRangeSearch);
        await assert.rejects(
            run({ difficulty: 99, blocks: 2 }, (call) => activity(call.input)),
            /Invalid MineBlock input: difficulty must be an integer from 0 to 32/
        );
    });

    it('rejects an input without a usable block count before scheduling anything', async () => {
        for (const input of [undefined, { difficulty: 4 }, { difficulty: 4, blocks: 0 }, { difficulty: 4, blocks: 17 }, { difficulty: 'x', blocks: 2 }]) {
            await assert.rejects(
                run(input, async () => assert.fail('no activity expected')),
                /Invalid MineChain input/,
                JSON.stringify(input)
            );
        }
    });

    it('fails clearly if an activity answers something that is not a block', async () => {
        await assert.rejects(run({ difficulty: 1, blocks: 1 }, async () => ({ nonce: 'x' })), /unreadable block 0/);
        // The old, unbounded answer (a bare block) is not a range answer either.
        const bare = { index: 0, previous_hash: GENESIS, nonce: 0, hash: 'a'.repeat(64) };
        await assert.rejects(run({ difficulty: 1, blocks: 1 }, async () => bare), /unreadable block 0/);
    });

    it('needs a positive whole range size', () => {
        for (const size of [0, -1, 1.5, Number.NaN]) assert.throws(() => mineChainOrchestrator(16, size), RangeError, String(size));
    });
});

describe('MineBlock activity', () => {
    const input = (start: number, end: number, difficulty = 8) => ({ index: 0, previous_hash: GENESIS, difficulty, start, end });

    it('returns the block with the smallest nonce', async () => {
        const answer = await mineBlockActivity(32, serialRangeSearch)(input(0, NONCE_RANGE_SIZE));
        assert.deepEqual(answer, {
            found: true,
            block: {
                index: 0,
                previous_hash: GENESIS,
                nonce: 339,
                hash: '005cd16526c7beb981dbccf408b276d36c70d61eb033c642a52a8e8cbe56ac95',
            },
        });
    });

    it('searches only its range: a nonce at the range start or end, and none in it', async () => {
        const activity = mineBlockActivity(32, serialRangeSearch, 100);
        const nonceOf = async (start: number, end: number) => {
            const answer = await activity(input(start, end));
            return answer.found ? answer.block.nonce : answer;
        };
        assert.equal(await nonceOf(339, 439), 339, 'first nonce of the range');
        assert.equal(await nonceOf(240, 340), 339, 'last nonce of the range');
        assert.equal(await nonceOf(339, 340), 339, 'a range of one');
        assert.deepEqual(await nonceOf(239, 339), { found: false, start: 239, end: 339 }, 'the range just below');
        // Above 339: the smallest nonce in the range, not the block's.
        const next = scanRange(0, GENESIS, 8, 340, 100_000);
        assert.ok(next !== undefined && next > 339);
        assert.equal(await nonceOf(Math.max(340, next - 99), next + 1), next, 'the next hit, last of its range');
    });

    it('over consecutive ranges from 0, finds what the serial search finds', async () => {
        const activity = mineBlockActivity(32, serialRangeSearch, 37);
        for (let difficulty = 0; difficulty <= 11; difficulty++) {
            let block: Block | undefined;
            for (let start = 0; block === undefined; start += 37) {
                const answer = await activity(input(start, start + 37, difficulty));
                if (answer.found) block = answer.block;
            }
            const nonce = findNonceSerial(0, GENESIS, difficulty);
            assert.deepEqual(block, { index: 0, previous_hash: GENESIS, nonce, hash: blockHash(0, GENESIS, nonce) }, `d=${difficulty}`);
        }
    });

    it('passes its range and stop signal to the search', async () => {
        const controller = new AbortController();
        let seen: { request: unknown; signal: AbortSignal | undefined } | undefined;
        const activity = mineBlockActivity(32, async (r, signal) => {
            seen = { request: r, signal };
            return serialRangeSearch(r);
        });
        await activity(input(10, 20, 1), controller.signal);
        assert.deepEqual(seen?.request, { index: 0, previousHash: GENESIS, difficulty: 1, start: 10, end: 20 });
        assert.equal(seen?.signal, controller.signal);
    });

    it('names the field and its bound for bad input', async () => {
        const activity = mineBlockActivity(24, serialRangeSearch, 100);
        const block = { index: 0, previous_hash: GENESIS, difficulty: 1, start: 0, end: 100 };
        const cases: Array<[unknown, RegExp]> = [
            [{ ...block, difficulty: 25 }, /difficulty must be an integer from 0 to 24/],
            [{ ...block, difficulty: -1 }, /difficulty must be an integer from 0 to 24/],
            [{ ...block, difficulty: 1.5 }, /difficulty must be an integer from 0 to 24/],
            [{ ...block, index: -1 }, /index must be a non-negative integer/],
            [{ ...block, previous_hash: '' }, /previous_hash must be a string/],
            // Only the bad field is named, once.
            [{ ...block, start: -1 }, /^Error: Invalid MineBlock input: start must be a non-negative integer$/],
            [{ ...block, start: 0.5 }, /start must be a non-negative integer/],
            [{ ...block, start: undefined }, /start must be a non-negative integer/],
            [{ ...block, end: undefined }, /end must be an integer above start, at most start \+ 100/],
            [{ ...block, start: 5, end: 5 }, /end must be an integer above start, at most start \+ 100/],
            [{ ...block, start: 5, end: 4 }, /end must be an integer above start/],
            [{ ...block, start: 5, end: 106 }, /end must be an integer above start, at most start \+ 100/],
            [{ ...block, start: 5, end: 2 ** 53 }, /^Error: Invalid MineBlock input: end must be an integer above start, at most start \+ 100$/],
            [null, /Invalid MineBlock input/],
        ];
        for (const [bad, message] of cases) {
            await assert.rejects(activity(bad), message, JSON.stringify(bad));
        }
        // The bound itself is fine.
        assert.deepEqual(await activity({ ...block, difficulty: 24, start: 5, end: 105 }), { found: false, start: 5, end: 105 });
    });

    it('refuses, by default, a range longer than NONCE_RANGE_SIZE', async () => {
        const activity = mineBlockActivity(32, async () => assert.fail('no search expected'));
        await assert.rejects(activity(input(0, NONCE_RANGE_SIZE + 1)), new RegExp(`at most start \\+ ${NONCE_RANGE_SIZE}`));
    });
});

/** The MineBlock answer, on this thread: what the activity returns for a range. */
function syncMineBlock(_name: string, raw: unknown) {
    const input = raw as MineBlockInput;
    const nonce = scanRange(input.index, input.previous_hash, input.difficulty, input.start, input.end);
    return nonce === undefined
        ? { found: false, start: input.start, end: input.end }
        : { found: true, block: { index: input.index, previous_hash: input.previous_hash, nonce, hash: blockHash(input.index, input.previous_hash, nonce) } };
}

/** Every other answer first from the top: ranges above the hit answer (in vain or with a hit) before the ones below. */
const alternating: PickNext = (() => {
    let turn = 0;
    return (inFlight: readonly FakeTask[]) => (turn++ % 2 === 0 ? (inFlight.at(-1) as FakeTask) : (inFlight[0] as FakeTask));
})();

describe('MineChain with ranges in flight (parallel_ranges)', () => {
    it('gives the sequential chain, nonces and total_attempts for 1, 2, 3 and 8 ranges in flight, in any answer order', () => {
        for (const [difficulty, rangeSize] of [[8, 7], [10, 64], [11, 100]] as const) {
            const chain = serialChain(difficulty, 3);
            const sequentialCalls = expectedCalls(chain, difficulty, rangeSize).length;
            for (const parallel of [1, 2, 3, 8]) {
                for (const pick of [lowestFirst, highestFirst, alternating]) {
                    const label = `d=${difficulty} range=${rangeSize} parallel=${parallel}`;
                    const run = drive(mineChainOrchestrator(16, rangeSize), {
                        input: { difficulty, blocks: 3, range_size: rangeSize, parallel_ranges: parallel },
                        answer: syncMineBlock,
                        pick,
                    });
                    const result = run.output as Mined;
                    assert.deepEqual(result.blocks, chain, label);
                    assert.equal(result.total_attempts, chain.reduce((sum, b) => sum + b.nonce + 1, 0), label);
                    assert.deepEqual(run.customStatuses, [0, 1, 2, 3].map((done) => ({ blocks_done: done, blocks_total: 3 })), label);
                    // A block's own ranges in flight (those of blocks before it may still run, unawaited).
                    for (const snapshot of run.inFlightSnapshots) {
                        const current = (snapshot.at(-1) as MineBlockInput).index;
                        assert.ok(snapshot.filter((i) => (i as MineBlockInput).index === current).length <= parallel, label);
                    }
                    // Every range below each hit was searched; at most parallel - 1 more per block were dispatched.
                    assert.ok(run.dispatched.length >= sequentialCalls && run.dispatched.length <= sequentialCalls + 3 * (parallel - 1), label);
                    if (parallel === 1) assert.deepEqual(run.dispatched, expectedCalls(chain, difficulty, rangeSize).map((call) => call.input), label);
                }
            }
        }
    });

    it('takes the smallest nonce when a higher range in flight has a hit too, and answers first', () => {
        // Difficulty 2 over ranges of 2: about half the ranges hold a hit, so some above the first hit do as well.
        const chain = serialChain(2, 4);
        const run = drive(mineChainOrchestrator(16, 2), {
            input: { difficulty: 2, blocks: 4, range_size: 2, parallel_ranges: 4 },
            answer: syncMineBlock,
            pick: highestFirst,
        });
        assert.deepEqual((run.output as Mined).blocks, chain);
        const hitsAbove = run.answered.filter((raw) => {
            const input = raw as MineBlockInput;
            const answer = syncMineBlock(MINE_BLOCK, input);
            return answer.found && chain[input.index] !== undefined && input.start > (chain[input.index] as Block).nonce;
        });
        assert.ok(hitsAbove.length > 0, 'a range above the smallest nonce answered with a hit first');
    });

    it('a failed range above the hit is never seen; a failed range below it fails the workflow', () => {
        const chain = serialChain(10, 1);
        const hitRange = Math.floor((chain[0] as Block).nonce / 64);
        const failAt = (range: number) => (name: string, raw: unknown) => {
            if ((raw as MineBlockInput).start === range * 64) throw new Error(`range ${range} failed`);
            return syncMineBlock(name, raw);
        };
        const input = { difficulty: 10, blocks: 1, range_size: 64, parallel_ranges: 4 };
        const ok = drive(mineChainOrchestrator(16, 64), { input, answer: failAt(hitRange + 1), pick: highestFirst });
        assert.deepEqual((ok.output as Mined).blocks, chain);
        assert.throws(() => drive(mineChainOrchestrator(16, 64), { input, answer: failAt(hitRange), pick: highestFirst }), new RegExp(`range ${hitRange} failed`));
    });

    it('a start records PARALLEL_RANGES and RANGE_SIZE in the input, so a changed setting never reaches a running workflow', () => {
        const plan = MINING.plan({ difficulty: 20, blocks: 2 }, parseConfig({ TASKHUB_NAME: 'unittests', PARALLEL_RANGES: '8', RANGE_SIZE: '4096' }));
        assert.deepEqual(plan.input, { difficulty: 20, blocks: 2, range_size: 4096, parallel_ranges: 8, work_limit: 16 * 2 * 2 ** 20, time_limit_seconds: 7200 });
        // Replayed under other settings (none are read by the orchestrator), the recorded input decides.
        const chain = serialChain(10, 2);
        const run = drive(mineChainOrchestrator(), { input: { difficulty: 10, blocks: 2, range_size: 64, parallel_ranges: 3 }, answer: syncMineBlock });
        assert.deepEqual((run.output as Mined).blocks, chain);
        assert.ok((run.dispatched as MineBlockInput[]).every((input) => input.end - input.start === 64));
    });

    it('an easy block, found in its first range, dispatches no other range (the window opens after a first range in vain)', () => {
        const run = drive(mineChainOrchestrator(), { input: { difficulty: 8, blocks: 3, range_size: 2 ** 24, parallel_ranges: 8 }, answer: syncMineBlock });
        assert.deepEqual((run.output as Mined).blocks, serialChain(8, 3));
        assert.equal(run.dispatched.length, 3);
    });

    it('refuses parallel_ranges out of 1 to 64', () => {
        for (const parallel of [0, 65, 1.5, 'x']) {
            assert.throws(
                () => drive(mineChainOrchestrator(16, 64), { input: { difficulty: 4, blocks: 1, parallel_ranges: parallel }, answer: syncMineBlock }),
                /Invalid MineChain input: .*parallel_ranges\?: integer from 1 to 64/
            );
        }
    });

    it('stops at its work limit: past work_limit hash attempts it fails with reason work_limit, checked as each range answers', () => {
        const input = { difficulty: 16, blocks: 2, range_size: 64, parallel_ranges: 2, work_limit: 640 };
        let run: ReturnType<typeof drive> | undefined;
        assert.throws(
            () => (run = drive(mineChainOrchestrator(16, 64), { input, answer: syncMineBlock })),
            (error: unknown) => error instanceof LimitReached && error.reason === 'work_limit' && /did 640 hash attempts, its work limit of 640/.test(error.message)
        );
        assert.equal(run, undefined);
        // Within its limits (16 × the expected attempts, as a start sets it) the same chain is the sequential one.
        const within = drive(mineChainOrchestrator(16, 64), { input: { ...input, difficulty: 8, work_limit: 16 * 2 * 2 ** 8 }, answer: syncMineBlock });
        assert.deepEqual((within.output as Mined).blocks, serialChain(8, 2));
    });

    it('stops at its time limit, on its own clock: past time_limit_seconds it fails with reason time_limit at the next range', () => {
        // The driver moves the orchestration's clock 100 ms per answered range.
        const input = { difficulty: 24, blocks: 1, range_size: 64, parallel_ranges: 1, time_limit_seconds: 1 };
        const dispatched: unknown[] = [];
        assert.throws(
            () => drive(mineChainOrchestrator(16, 64), { input, answer: (name, raw) => (dispatched.push(raw), syncMineBlock(name, raw)) }),
            (error: unknown) => error instanceof LimitReached && error.reason === 'time_limit' && /1 s/.test(error.message)
        );
        assert.ok(dispatched.length >= 10 && dispatched.length <= 12, `${dispatched.length} ranges`);
        // An input without limits (a workflow started before they existed) has none.
        const { time_limit_seconds: _, ...unlimited } = input;
        assert.ok(drive(mineChainOrchestrator(16, 64), { input: { ...unlimited, difficulty: 10 }, answer: syncMineBlock }).output);
    });
});

