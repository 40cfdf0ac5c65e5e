import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrchestrationContext } from 'durable-functions';
import { GENESIS, blockHash, meetsDifficulty, blockDigest } from '../../src/mining/hashRule';
import { findNonceSerial } from '../../src/mining/scan';
import { MINE_BLOCK, type Block } from '../../src/workflow/contracts';
import { mineBlockActivity } from '../../src/workflow/mineBlock';
import { mineChainOrchestrator } from '../../src/workflow/mineChain';

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

const serialSearch = async (r: { index: number; previousHash: string; difficulty: number }) => {
    const nonce = findNonceSerial(r.index, r.previousHash, r.difficulty);
    return { nonce, hash: blockHash(r.index, r.previousHash, nonce) };
};

/** Runs the generator to the end the way the Durable replay does, answering each activity call. */
async function run(input: unknown, answer: (call: ScheduledCall) => Promise<unknown>) {
    const { context, df, customStatuses } = fakeContext(input);
    const calls: ScheduledCall[] = [];
    const generator = mineChainOrchestrator(16)(context);
    let step = generator.next();
    while (!step.done) {
        const call = step.value as unknown as ScheduledCall;
        calls.push(call);
        const result = await answer(call);
        df.currentUtcDateTime = new Date(df.currentUtcDateTime.getTime() + 250);
        step = generator.next(result);
    }
    return { output: step.value, calls, customStatuses };
}

describe('MineChain orchestration', () => {
    it('chains MineBlock calls, publishes progress before and after each block, and sums the work', async () => {
        const activity = mineBlockActivity(32, serialSearch);
        const { output, calls, customStatuses } = await run({ difficulty: 8, blocks: 3 }, (call) => activity(call.input));

        assert.deepEqual(customStatuses, [
            { blocks_done: 0, blocks_total: 3 },
            { blocks_done: 1, blocks_total: 3 },
            { blocks_done: 2, blocks_total: 3 },
            { blocks_done: 3, blocks_total: 3 },
        ]);
        assert.equal(calls.length, 3);
        const result = output as { difficulty: number; total_attempts: number; elapsed_ms: number; blocks: Block[] };
        let previous = GENESIS;
        result.blocks.forEach((block, i) => {
            assert.deepEqual(calls[i], { name: MINE_BLOCK, input: { index: i, previous_hash: previous, difficulty: 8 } });
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

    it('passes an out-of-range difficulty to MineBlock, whose error fails the workflow', async () => {
        const activity = mineBlockActivity(32, serialSearch);
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
    });
});

describe('MineBlock activity', () => {
    it('returns the block with the smallest nonce', async () => {
        const block = await mineBlockActivity(32, serialSearch)({ index: 0, previous_hash: GENESIS, difficulty: 8 });
        assert.deepEqual(block, {
            index: 0,
            previous_hash: GENESIS,
            nonce: 339,
            hash: '005cd16526c7beb981dbccf408b276d36c70d61eb033c642a52a8e8cbe56ac95',
        });
    });

    it('passes its stop signal to the search', async () => {
        const controller = new AbortController();
        let seen: AbortSignal | undefined;
        const activity = mineBlockActivity(32, async (r, signal) => {
            seen = signal;
            return serialSearch(r);
        });
        await activity({ index: 0, previous_hash: GENESIS, difficulty: 1 }, controller.signal);
        assert.equal(seen, controller.signal);
    });

    it('names the field and its bound for bad input', async () => {
        const activity = mineBlockActivity(24, serialSearch);
        const cases: Array<[unknown, RegExp]> = [
            [{ index: 0, previous_hash: GENESIS, difficulty: 25 }, /difficulty must be an integer from 0 to 24/],
            [{ index: 0, previous_hash: GENESIS, difficulty: -1 }, /difficulty must be an integer from 0 to 24/],
            [{ index: 0, previous_hash: GENESIS, difficulty: 1.5 }, /difficulty must be an integer from 0 to 24/],
            [{ index: -1, previous_hash: GENESIS, difficulty: 1 }, /index must be a non-negative integer/],
            [{ index: 0, previous_hash: '', difficulty: 1 }, /previous_hash must be a string/],
            [null, /Invalid MineBlock input/],
        ];
        for (const [input, message] of cases) {
            await assert.rejects(activity(input), message, JSON.stringify(input));
        }
    });
});
