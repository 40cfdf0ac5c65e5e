import { z } from 'zod';

/**
 * The data the orchestration and its activity exchange, and the orchestration's output (which
 * get_mining_result reports as `result`). Stored by the Durable backend, so every field is plain JSON.
 */

export const MINE_CHAIN = 'MineChain';
export const MINE_BLOCK = 'MineBlock';

const count = z.number().int().min(0);

export const blockSchema = z.object({
    index: count.describe('Position of the block in the chain, from 0.'),
    previous_hash: z.string().describe('"GENESIS" for block 0, else the hash of the block before.'),
    nonce: count.describe('The smallest non-negative integer whose hash meets the difficulty.'),
    hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .describe('SHA-256 of the UTF-8 text "{index}:{previous_hash}:{nonce}", lowercase hex.'),
});
export type Block = z.infer<typeof blockSchema>;

export const miningResultSchema = z.object({
    difficulty: count.describe('Leading zero bits each block hash starts with.'),
    total_attempts: count.describe('Hashes tried: the sum of nonce + 1 over the blocks.'),
    elapsed_ms: count.describe('Wall time of the workflow, from its start to its last block.'),
    blocks: z.array(blockSchema),
});
export type MiningResult = z.infer<typeof miningResultSchema>;

/**
 * MineChain's input. Difficulty is checked by MineBlock, which owns the hashing rule. Everything a run's
 * replay depends on travels here or is a fixed constant, never a setting: a redeploy with other
 * MAX_BLOCKS, MAX_DIFFICULTY (or another NONCE_RANGE_SIZE) must not change or fail a running workflow.
 */
export interface MineChainInput {
    difficulty: number;
    blocks: number;
    /**
     * Nonces per MineBlock call, as the workflow was started with. Absent in the input of workflows
     * started before it was recorded: they ran with LEGACY_RANGE_SIZE.
     */
    range_size?: number;
    /**
     * Most consecutive ranges of the current block in flight at once (PARALLEL_RANGES at start). Absent in
     * the input of workflows started before it was recorded: they ran one range at a time.
     */
    parallel_ranges?: number;
    /**
     * The lifetime an MCP task asked for, in ms from the instance's creation; absent for no limit. Kept in
     * the input because the backend keeps the input as long as the instance, on every instance that reads it.
     */
    task_ttl_ms?: number;
}

/** The progress MineChain publishes as its custom status. */
export const progressSchema = z.object({
    blocks_done: count.describe('Blocks mined so far.'),
    blocks_total: count.describe('Blocks in the chain.'),
});
export type Progress = z.infer<typeof progressSchema>;

/**
 * For MineBlock's watch: true once MineChain's progress says block `index` is done (set right after it
 * accepts the block), so a range still searching it is wasted work. Undefined (watch for the end only)
 * without an index.
 */
export function blockSuperseded(index: number | undefined): ((customStatus: unknown) => boolean) | undefined {
    if (index === undefined) return undefined;
    return (customStatus) => {
        const progress = progressSchema.safeParse(customStatus);
        return progress.success && progress.data.blocks_done > index;
    };
}

/**
 * Most nonces one MineBlock call searches: 2^27 = 134,217,728 attempts. That is about 30 s at the
 * WebAssembly pool's measured 4 to 5 MH/s on 2 vCPUs (BENCHMARKS.md, "Mining") and 45 s at 3 MH/s on a slow instance, so a call
 * stays under a minute, far below host.json functionTimeout (10 min) even when a few workflows share
 * an instance's CPUs; a crash loses at most one range. 2^28 would be about 90 s at 3 MH/s; smaller
 * ranges add orchestration round trips and history (an average difficulty-32 block takes 32 calls).
 */
export const NONCE_RANGE_SIZE = 2 ** 27;

/** The range size of workflows whose input does not say (started before `range_size` was recorded). */
export const LEGACY_RANGE_SIZE = 2 ** 27;

/**
 * The bounds the orchestration and the activity hold inputs to: the hard limits of the settings
 * (src/config.ts), fixed, so that lowering MAX_BLOCKS or MAX_DIFFICULTY only limits new work.
 */
export const BLOCKS_LIMIT = 1000;
/** The most ranges in flight an input may ask for: above the setting's bound (16), so lowering that never fails a run. */
export const PARALLEL_RANGES_LIMIT = 64;
export const DIFFICULTY_LIMIT = 64;

/** One MineBlock call: search block `index` for the smallest nonce in [start, end). */
export interface MineBlockInput {
    index: number;
    previous_hash: string;
    difficulty: number;
    start: number;
    end: number;
}

/** MineBlock's answer: the block, if its nonce is in the range, else the range searched in vain. */
export const mineBlockOutputSchema = z.discriminatedUnion('found', [
    z.object({ found: z.literal(true), block: blockSchema }),
    z.object({ found: z.literal(false), start: count, end: count }),
]);
export type MineBlockOutput = z.infer<typeof mineBlockOutputSchema>;
