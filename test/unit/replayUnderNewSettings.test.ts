import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { OrchestrationContext } from 'durable-functions';
import { GENESIS, blockHash } from '../../src/jobs/mining/hashRule';
import { findNonceSerial } from '../support/serialSearch';
import { parseConfig } from '../../src/config';
import { DIFFICULTY_LIMIT, LEGACY_RANGE_SIZE, MINE_BLOCK, type Block, type MineBlockInput } from '../../src/jobs/mining/contracts';
import { mineBlockActivity } from '../../src/jobs/mining/mineBlockActivity';
import { mineChainOrchestrator } from '../../src/jobs/mining/mineChainOrchestrator';

/**
 * A workflow started under one deployment replays under the next, whatever its settings say: what the
 * replay depends on travels in the input (the block count, the range size) or is a fixed bound. The
 * history here is one recorded by the app before `range_size` was in the input: 3 blocks at difficulty
 * 12, each found in its first range of LEGACY_RANGE_SIZE nonces. It is replayed under settings that
 * allow less (MAX_BLOCKS 2, MAX_DIFFICULTY 8).
 */

const ROOT = join(__dirname, '..', '..', '..');

interface Call {
    name: string;
    input: unknown;
}

/** The old run's history: each MineBlock call it scheduled and the answer recorded for it. */
function oldHistory(): Array<{ call: Call; answer: unknown }> {
    const history: Array<{ call: Call; answer: unknown }> = [];
    let previous = GENESIS;
    for (let index = 0; index < 3; index++) {
        const nonce = findNonceSerial(index, previous, 12);
        const block: Block = { index, previous_hash: previous, nonce, hash: blockHash(index, previous, nonce) };
        const input: MineBlockInput = { index, previous_hash: previous, difficulty: 12, start: 0, end: LEGACY_RANGE_SIZE };
        history.push({ call: { name: MINE_BLOCK, input }, answer: { found: true, block } });
        previous = block.hash;
    }
    return history;
}

/** Replays `history` through the orchestrator as the Durable runtime does; fails on any divergence. */
function replay(input: unknown, history: Array<{ call: Call; answer: unknown }>) {
    const df = {
        currentUtcDateTime: new Date('2026-11-01T00:00:00.000Z'),
        getInput: () => input,
        setCustomStatus: () => undefined,
        callActivity: (name: string, activityInput: unknown): Call => ({ name, input: activityInput }),
    };
    // The registered form: no arguments, as src/jobs/mining/functions.ts registers it.
    const generator = mineChainOrchestrator()({ df } as unknown as OrchestrationContext);
    let step = generator.next();
    for (const event of history) {
        assert.equal(step.done, false, 'the replay ended before the history did');
        assert.deepEqual(step.value, event.call, 'the replay scheduled another call than the history holds');
        df.currentUtcDateTime = new Date(df.currentUtcDateTime.getTime() + 1000);
        step = generator.next(event.answer);
    }
    assert.equal(step.done, true, 'the replay scheduled more than the history holds');
    return step.value as { blocks: Block[] };
}

describe('replay of an old history under new settings', () => {
    it('reads no setting where the orchestration and the activity are registered', () => {
        for (const file of ['src/jobs/mining/functions.ts']) {
            const source = readFileSync(join(ROOT, file), 'utf8');
            assert.doesNotMatch(source, /getConfig|process\.env/, `${file} reads settings: a redeploy could change the replay of running workflows`);
        }
    });

    it('replays the old run to the same chain though MAX_BLOCKS and MAX_DIFFICULTY are now lower', async () => {
        const lowered = parseConfig({ TASKHUB_NAME: 'unittests', MAX_BLOCKS: '2', MAX_DIFFICULTY: '8', DEFAULT_DIFFICULTY: '8', CHAIN_LENGTH: '2' });
        assert.ok(lowered.maxBlocks < 3 && lowered.maxDifficulty < 12);
        const history = oldHistory();
        const output = replay({ difficulty: 12, blocks: 3 }, history);
        assert.deepEqual(output.blocks, history.map((e) => (e.answer as { block: Block }).block));
        // And a range of the old run still in flight is accepted by the activity as registered.
        const activity = mineBlockActivity(DIFFICULTY_LIMIT, async () => undefined);
        assert.deepEqual(await activity(history[0]?.call.input), { found: false, start: 0, end: LEGACY_RANGE_SIZE });
    });

    it('takes the range size from the input of a new run', () => {
        const df = {
            currentUtcDateTime: new Date(0),
            getInput: () => ({ difficulty: 30, blocks: 1, range_size: 1000 }),
            setCustomStatus: () => undefined,
            callActivity: (name: string, activityInput: unknown): Call => ({ name, input: activityInput }),
        };
        const generator = mineChainOrchestrator()({ df } as unknown as OrchestrationContext);
        const first = generator.next().value as unknown as Call;
        assert.deepEqual(first.input, { index: 0, previous_hash: GENESIS, difficulty: 30, start: 0, end: 1000 });
        const second = generator.next({ found: false, start: 0, end: 1000 }).value as unknown as Call;
        assert.deepEqual(second.input, { index: 0, previous_hash: GENESIS, difficulty: 30, start: 1000, end: 2000 });
    });
});
