import { z } from 'zod';
import type { Config } from '../../settings';
import { idempotencyKeyField, integerField, toolArguments, type JobDefinition, type JobProgress, type JobResult, type StartArgs } from '../job';
import { MINE_CHAIN, PARALLEL_RANGES_LIMIT, miningResultSchema, progressSchema, type MiningResult, type Progress } from './contracts';
import { registerMiningFunctions } from './functions';

/**
 * Mining as a job: a chain of SHA-256 proof-of-work blocks (docs/contract.md). Its tools are start_mining,
 * get_mining_result and cancel_mining; its cost is blocks × 2^difficulty expected hash attempts.
 */

/** The expected attempts of a run: each block needs 2^difficulty hashes on average. */
export function expectedAttempts(blocks: number, difficulty: number): number {
    return blocks * 2 ** difficulty;
}

/**
 * The most attempts a run may make, as a multiple of its expected attempts. A block's attempts are geometric, so one
 * block reaches 16 times its expected attempts with probability e^-16, about 1 in 9 million, and a chain of several
 * blocks less often still (docs/contract.md, "Limits").
 */
export const WORK_LIMIT_FACTOR = 16;

function startDescription(config: Config): string {
    return (
        'Mines a chain of SHA-256 proof-of-work blocks as a durable background workflow, waiting up to ' +
        `${config.waitBudgetSeconds} seconds for it to finish. ` +
        'If status is "completed", use `result`. ' +
        'If status is "running", call get_mining_result with the returned workflow_id after poll_after_seconds, ' +
        'and keep polling that way until status is "completed" or "failed". ' +
        'If status is "failed", do not poll; tell the user the `error`. ' +
        'The expected work is blocks × 2^difficulty hashes, returned as expected_attempts: each extra bit of ' +
        'difficulty doubles it (one more bit on 4 blocks at difficulty 28 adds 2^30, about a billion hashes), ' +
        'and one more block adds 2^difficulty. ' +
        'A call over the work limit, or while too many of your workflows run, is refused with an error that says ' +
        'what to do (lower the work, wait, or cancel_mining one). ' +
        'Pass an idempotency_key when you may retry this call, so that a retry does not start the work twice.'
    );
}

function buildInputSchema(config: Config) {
    const { maxDifficulty, defaultDifficulty, maxBlocks, chainLength } = config;
    return toolArguments({
        difficulty: integerField('difficulty', 0, maxDifficulty)
            .default(defaultDifficulty)
            .describe(`Leading zero bits each block hash must start with, 0 to ${maxDifficulty} (default ${defaultDifficulty}).`),
        blocks: integerField('blocks', 1, maxBlocks)
            .default(chainLength)
            .describe(`Number of blocks in the chain, 1 to ${maxBlocks} (default ${chainLength}).`),
        idempotency_key: idempotencyKeyField(),
    });
}

/** Built once per configuration, not per request: zod schemas are costly to build (BENCHMARKS.md, tool-call throughput). */
const inputSchemas = new WeakMap<Config, ReturnType<typeof buildInputSchema>>();

function startInput(config: Config): ReturnType<typeof buildInputSchema> {
    let schema = inputSchemas.get(config);
    if (schema === undefined) {
        schema = buildInputSchema(config);
        inputSchemas.set(config, schema);
    }
    return schema;
}

function powerOfTwo(value: number): string {
    const exponent = Math.log2(value);
    return Number.isInteger(exponent) ? `2^${exponent} = ${value}` : String(value);
}

/** The refusal of a run over MAX_WORK: the most blocks at this difficulty, or else the highest difficulty for one block, that fit. */
export function overWorkText(blocks: number, difficulty: number, maxWork: number): string {
    const expected = expectedAttempts(blocks, difficulty);
    const blocksThatFit = Math.floor(maxWork / 2 ** difficulty);
    const hint =
        blocksThatFit >= 1
            ? `use at most ${blocksThatFit} block${blocksThatFit === 1 ? '' : 's'} at difficulty ${difficulty}`
            : `use difficulty ${Math.floor(Math.log2(maxWork))} or lower`;
    return (
        `This run would take ${expected} expected attempts (blocks × 2^difficulty = ${blocks} × 2^${difficulty}), ` +
        `more than one call may start (MAX_WORK = ${powerOfTwo(maxWork)}). Lower the work: ${hint}.`
    );
}

const workSchema = z.object({ blocks: z.number().int().min(1), difficulty: z.number().int().min(0) });
const blocksSchema = z.object({ blocks: z.number().int().min(1) });

function miningArgs(args: StartArgs): { difficulty: number; blocks: number } {
    return workSchema.parse(args);
}

export const MINING: JobDefinition = {
    name: 'mining',
    orchestrator: MINE_CHAIN,
    tools: {
        start: { name: 'start_mining', title: 'Start mining' },
        get: {
            name: 'get_mining_result',
            title: 'Get mining result',
            description:
                'Reports the status of a mining workflow started by start_mining. ' +
                'Pass the workflow_id exactly as start_mining returned it; never make one up. ' +
                'If status is "running", wait poll_after_seconds, then call get_mining_result again with the same workflow_id. ' +
                'If status is "completed", use `result` and stop polling. ' +
                'If status is "failed", stop polling and tell the user the `error`. ' +
                'If status is "not_found", stop polling this id and call start_mining to start a new workflow.',
        },
        cancel: {
            name: 'cancel_mining',
            title: 'Cancel mining',
            description:
                'Cancels a mining workflow started by start_mining and reports its status afterwards. ' +
                'Call it only when the user wants the work stopped. ' +
                'Expect status "failed" with reason "cancelled"; do not poll that workflow again. ' +
                'A workflow that had already ended keeps its status ("completed": use `result`; "failed": report `error`). ' +
                'If status is "running", the cancellation is not visible yet: call get_mining_result after poll_after_seconds. ' +
                'If status is "not_found", no workflow has this id: do not retry it.',
        },
    },
    startDescription,
    instructions:
        'Mining runs as a durable background workflow. Call start_mining; if it answers "running", ' +
        'poll get_mining_result with its workflow_id every poll_after_seconds until "completed" or "failed". ' +
        'Use cancel_mining only to stop work the user no longer wants.',
    noun: 'mining workflow',
    startInput,
    plan(args, config) {
        const { difficulty, blocks } = miningArgs(args);
        return {
            // Recorded at start, so a changed setting never changes this run or its replay.
            input: {
                difficulty,
                blocks,
                range_size: config.rangeSize,
                // PARALLEL_RANGES, within what MineChain accepts.
                parallel_ranges: Math.min(config.parallelRanges, PARALLEL_RANGES_LIMIT),
                work_limit: Math.min(Number.MAX_SAFE_INTEGER, WORK_LIMIT_FACTOR * expectedAttempts(blocks, difficulty)),
                time_limit_seconds: config.maxWorkflowSeconds,
            },
            matchOn: ['difficulty', 'blocks'],
            cost: expectedAttempts(blocks, difficulty),
            initialProgress: { blocks_done: 0, blocks_total: blocks } satisfies Progress,
        };
    },
    workLimit: {
        of: (config) => config.maxWork,
        refusal(args, _cost, maxWork) {
            const { difficulty, blocks } = miningArgs(args);
            return overWorkText(blocks, difficulty, maxWork);
        },
    },
    costField: {
        name: 'expected_attempts',
        description:
            'Always set by start_mining and tasks/result: the work the call started: blocks × 2^difficulty expected hash attempts (one more bit of difficulty doubles it).',
        of(input) {
            const parsed = workSchema.safeParse(input);
            return parsed.success ? expectedAttempts(parsed.data.blocks, parsed.data.difficulty) : undefined;
        },
    },
    workLimitField: {
        name: 'max_attempts',
        description: `Set by start_mining and tasks/result: the most hash attempts the workflow may make (${WORK_LIMIT_FACTOR} × expected_attempts); past it, it ends failed with reason work_limit.`,
    },
    result: {
        schema: miningResultSchema as z.ZodType<JobResult>,
        description: 'completed only: the mined chain.',
        // Only result.blocks is cut, from the end: total_attempts still counts every block, and the blocks kept are a verifiable prefix of the chain.
        cut: {
            description:
                'completed only, and only when true: result.blocks was cut to fit the answer size limit; `next` names the resource with the whole result.',
            length: (result) => (result as MiningResult).blocks.length,
            keep: (result, kept) => ({ ...result, blocks: (result as MiningResult).blocks.slice(0, kept) }),
            note: (kept, total, uri) =>
                `result.blocks holds the first ${kept} of ${total} blocks, cut to fit the answer size limit. ` +
                `Read the resource ${uri} for the whole result.`,
        },
    },
    progress: {
        schema: progressSchema as z.ZodType<JobProgress>,
        description: 'running only: blocks mined so far.',
        counts: (progress) => ({ done: (progress as Progress).blocks_done, total: (progress as Progress).blocks_total }),
        message(progress) {
            const { blocks_done, blocks_total } = progress as Progress;
            if (blocks_done === 0) return `Mining block 1 of ${blocks_total}`;
            return `Mined block ${blocks_done} of ${blocks_total}`;
        },
        initial(input) {
            const parsed = blocksSchema.safeParse(input);
            return parsed.success ? ({ blocks_done: 0, blocks_total: parsed.data.blocks } satisfies Progress) : undefined;
        },
    },
    completedMessage: (result) => `Mined all ${(result as MiningResult).blocks.length} blocks`,
    workingMessage: 'Mining',
    failedFallback: 'The mining workflow failed.',
    failedNext: 'Do not poll again. Tell the user that mining failed and why; call start_mining again only if they want to retry.',
    resource: { scheme: 'mining', name: 'mining-workflow', title: 'Mining workflow status' },
    registerFunctions: registerMiningFunctions,
};
