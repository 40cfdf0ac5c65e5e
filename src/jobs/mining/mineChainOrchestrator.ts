import { z } from 'zod';
import type { OrchestrationContext, OrchestrationHandler, Task } from 'durable-functions';
import { checkTime, checkWork, limitsSchema, type Limits } from '../limits';
import { rangeWindow } from '../rangeWindow';
import { GENESIS } from './hashRule';
import {
    BLOCKS_LIMIT,
    LEGACY_RANGE_SIZE,
    MINE_BLOCK,
    NONCE_RANGE_SIZE,
    PARALLEL_RANGES_LIMIT,
    mineBlockOutputSchema,
    type Block,
    type MineBlockInput,
    type MiningResult,
    type Progress,
} from './contracts';

/**
 * The MineChain orchestration: function chaining, each block fed the hash of the block before. A
 * block is mined by MineBlock calls over consecutive nonce ranges from 0, each a bounded piece of
 * work, up to `parallel_ranges` of them in flight (src/jobs/rangeWindow.ts), until one finds a nonce.
 * Answers are taken in range order and each range answers with its smallest hit, so the first hit
 * taken is the block's smallest nonce, exactly the sequential answer. Replay-safe: no clock but the orchestration's
 * own, no I/O, no randomness; the ranges follow from the inputs and the answers alone.
 */

/**
 * Blocks are checked here because the loop needs them. Difficulty only has to be a number here:
 * its range is MineBlock's to check, as the owner of the hashing rule (so a difficulty out of range
 * fails in the activity, which is how the end-to-end tests provoke a failed workflow).
 */
function inputSchema(maxBlocks: number) {
    return z.object({
        difficulty: z.number(),
        blocks: z.number().int().min(1).max(maxBlocks),
        range_size: z.number().int().min(1).max(NONCE_RANGE_SIZE).optional(),
        parallel_ranges: z.number().int().min(1).max(PARALLEL_RANGES_LIMIT).optional(),
        ...limitsSchema.shape,
    });
}

/**
 * Registered without arguments: the bounds are fixed constants and the range size comes from the input,
 * so nothing a setting says changes a replay. `maxBlocks` and `legacyRangeSize` (the range size of an
 * input without one) are for tests.
 */
export function mineChainOrchestrator(maxBlocks: number = BLOCKS_LIMIT, legacyRangeSize: number = LEGACY_RANGE_SIZE): OrchestrationHandler {
    if (!Number.isSafeInteger(legacyRangeSize) || legacyRangeSize < 1) {
        throw new RangeError(`rangeSize must be a positive integer, got ${legacyRangeSize}`);
    }
    const schema = inputSchema(maxBlocks);
    return function* (context: OrchestrationContext) {
        const parsed = schema.safeParse(context.df.getInput());
        if (!parsed.success) {
            throw new Error(
                `Invalid MineChain input: expected {difficulty: number, blocks: integer from 1 to ${maxBlocks}, range_size?: integer from 1 to ${NONCE_RANGE_SIZE}, parallel_ranges?: integer from 1 to ${PARALLEL_RANGES_LIMIT}}`
            );
        }
        const { difficulty, blocks: blocksTotal } = parsed.data;
        const rangeSize = parsed.data.range_size ?? legacyRangeSize;
        const parallelRanges = parsed.data.parallel_ranges ?? 1;
        const startedAt = context.df.currentUtcDateTime.getTime();
        const progress = (blocksDone: number): Progress => ({ blocks_done: blocksDone, blocks_total: blocksTotal });
        context.df.setCustomStatus(progress(0));

        const blocks: Block[] = [];
        let previousHash = GENESIS;
        // The limits are checked each time a range answers without a nonce (src/jobs/limits.ts).
        const bounds = { limits: parsed.data as Limits, startedAt, attemptsBefore: 0 };
        for (let index = 0; index < blocksTotal; index++) {
            const block: Block = yield* mineBlock(context, { index, previous_hash: previousHash, difficulty }, rangeSize, parallelRanges, bounds);
            bounds.attemptsBefore += block.nonce + 1;
            blocks.push(block);
            previousHash = block.hash;
            context.df.setCustomStatus(progress(index + 1));
        }

        const result: MiningResult = {
            difficulty,
            total_attempts: blocks.reduce((sum, block) => sum + block.nonce + 1, 0),
            // currentUtcDateTime is replayed from history, so this is the same on every replay.
            elapsed_ms: Math.max(0, context.df.currentUtcDateTime.getTime() - startedAt),
            blocks,
        };
        return result;
    };
}

type BlockTask = Pick<MineBlockInput, 'index' | 'previous_hash' | 'difficulty'>;

/**
 * One block: MineBlock over [0, n), [n, 2n), … until a range holds a nonce, `width` ranges in flight once
 * the first range has answered without one. The
 * custom status set right after this returns is what tells the ranges still running above the hit to stop
 * (src/jobs/endWatch.ts).
 */
function* mineBlock(
    context: OrchestrationContext,
    task: BlockTask,
    rangeSize: number,
    width: number,
    bounds: { limits: Limits; startedAt: number; attemptsBefore: number }
): Generator<Task, Block, unknown> {
    const { index, previous_hash } = task;
    const rangeOf = (k: number) => ({ start: k * rangeSize, end: Math.min((k + 1) * rangeSize, Number.MAX_SAFE_INTEGER) });
    const block = yield* rangeWindow<Block>(context, {
        width,
        // An easy block is found in its first range: search that alone, and open the window only if it has no nonce.
        slowStart: true,
        count: Math.ceil(Number.MAX_SAFE_INTEGER / rangeSize),
        start(k) {
            const input: MineBlockInput = { ...task, ...rangeOf(k) };
            return context.df.callActivity(MINE_BLOCK, input);
        },
        take(k, raw) {
            const { start, end } = rangeOf(k);
            const answer = mineBlockOutputSchema.safeParse(raw);
            if (!answer.success) throw new Error(`MineBlock returned an unreadable block ${index}`);
            const found = answer.data;
            // An answer for another block or range would break the smallest-nonce guarantee: refuse it.
            if (found.found) {
                const { block } = found;
                if (block.index === index && block.previous_hash === previous_hash && block.nonce >= start && block.nonce < end) {
                    return block;
                }
            } else if (found.start === start && found.end === end) {
                // Ranges are taken in order, so every nonce below `end` of this block has been tried.
                checkWork(bounds.limits, bounds.attemptsBefore + end, 'hash attempts');
                checkTime(bounds.limits, bounds.startedAt, context.df.currentUtcDateTime.getTime());
                return undefined;
            }
            throw new Error(`MineBlock answered for another block or range than block ${index}, nonces [${start}, ${end})`);
        },
    });
    if (block === undefined) throw new Error(`No nonce below ${Number.MAX_SAFE_INTEGER} meets the difficulty for block ${index}`);
    return block;
}
