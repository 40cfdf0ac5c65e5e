import { z } from 'zod';
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { GENESIS } from '../mining/hashRule';
import { MINE_BLOCK, blockSchema, type Block, type MineBlockInput, type MiningResult, type Progress } from './contracts';

/**
 * The MineChain orchestration: function chaining, one MineBlock activity per block, each fed the
 * hash of the block before. Replay-safe: no clock but the orchestration's own, no I/O, no randomness.
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
    });
}

export function mineChainOrchestrator(maxBlocks: number): OrchestrationHandler {
    const schema = inputSchema(maxBlocks);
    return function* (context: OrchestrationContext) {
        const parsed = schema.safeParse(context.df.getInput());
        if (!parsed.success) {
            throw new Error(
                `Invalid MineChain input: expected {difficulty: number, blocks: integer from 1 to ${maxBlocks}}`
            );
        }
        const { difficulty, blocks: blocksTotal } = parsed.data;
        const startedAt = context.df.currentUtcDateTime.getTime();
        const progress = (blocksDone: number): Progress => ({ blocks_done: blocksDone, blocks_total: blocksTotal });
        context.df.setCustomStatus(progress(0));

        const blocks: Block[] = [];
        let previousHash = GENESIS;
        for (let index = 0; index < blocksTotal; index++) {
            const input: MineBlockInput = { index, previous_hash: previousHash, difficulty };
            const answer = blockSchema.safeParse(yield context.df.callActivity(MINE_BLOCK, input));
            if (!answer.success) throw new Error(`MineBlock returned an unreadable block ${index}`);
            const block = answer.data;
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
