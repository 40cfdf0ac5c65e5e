import { z } from 'zod';
import type { Config } from '../../config';
import type { ToolDeps } from '../deps';
import { startStatusSchema } from '../outputSchemas';
import { refusalText } from '../refusalText';
import { running, toWorkflowStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { systemClock } from '../../workflow/budgetedWait';
import { expectedAttempts } from '../../workflow/durableStatus';
import type { StartRefusal } from '../../workflow/startRefusal';
import { MINE_CHAIN, NONCE_RANGE_SIZE, type MineChainInput } from '../../orchestration/contracts';
import type { StartRequest } from '../../workflow/startOrFind';

export function startMiningDescription(waitBudgetSeconds: number): string {
    return (
        'Mines a chain of SHA-256 proof-of-work blocks as a durable background workflow, waiting up to ' +
        `${waitBudgetSeconds} seconds for it to finish. ` +
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

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

function buildInputSchema(config: Config) {
    const { maxDifficulty, defaultDifficulty, maxBlocks, chainLength } = config;
    const difficultyBound = `difficulty must be an integer from 0 to ${maxDifficulty}`;
    const blocksBound = `blocks must be an integer from 1 to ${maxBlocks}`;
    const keyBound = `idempotency_key must be a string of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`;
    // Strict: an argument this tool does not know is an error, not silently dropped.
    return z.strictObject({
        difficulty: z
            .number({ error: difficultyBound })
            .int({ error: difficultyBound })
            .min(0, { error: difficultyBound })
            .max(maxDifficulty, { error: difficultyBound })
            .default(defaultDifficulty)
            .describe(`Leading zero bits each block hash must start with, 0 to ${maxDifficulty} (default ${defaultDifficulty}).`),
        blocks: z
            .number({ error: blocksBound })
            .int({ error: blocksBound })
            .min(1, { error: blocksBound })
            .max(maxBlocks, { error: blocksBound })
            .default(chainLength)
            .describe(`Number of blocks in the chain, 1 to ${maxBlocks} (default ${chainLength}).`),
        idempotency_key: z
            .string({ error: keyBound })
            .min(1, { error: keyBound })
            .max(IDEMPOTENCY_KEY_MAX_LENGTH, { error: keyBound })
            .optional()
            .describe(
                'Optional. A key you choose for this piece of work (1 to 255 characters). Calling again with the same ' +
                    'key and arguments returns the workflow it started instead of starting another, so a retry is safe.'
            ),
    });
}

/** Built once per configuration, not per request: zod schemas are costly to build (BENCHMARKS.md, tool-call throughput). */
const inputSchemas = new WeakMap<Config, ReturnType<typeof buildInputSchema>>();

function startInputSchema(config: Config): ReturnType<typeof buildInputSchema> {
    let schema = inputSchemas.get(config);
    if (schema === undefined) {
        schema = buildInputSchema(config);
        inputSchemas.set(config, schema);
    }
    return schema;
}

export type StartMiningInput = ReturnType<typeof buildInputSchema>;
export type StartMiningArgs = z.output<StartMiningInput>;

/**
 * start_mining's plain call: starts the workflow (or finds the one its idempotency_key started) and waits
 * up to WAIT_BUDGET_SECONDS for it, reporting progress, then answers the result or `running` with the
 * workflow_id to poll. The budget covers the whole call, the start request included.
 */
export function startMiningTool(deps: ToolDeps): ToolDefinition<StartMiningInput> {
    const { config, log, workflows } = deps;
    return {
        name: 'start_mining',
        title: 'Start mining',
        description: startMiningDescription(config.waitBudgetSeconds),
        inputSchema: startInputSchema(config),
        outputSchema: startStatusSchema,
        annotations: {
            title: 'Start mining',
            readOnlyHint: false,
            // It creates work and destroys nothing.
            destructiveHint: false,
            // Without an idempotency_key every call starts another workflow.
            idempotentHint: false,
            // It talks to this app's own workflow backend only.
            openWorldHint: false,
        },
        call: ({ difficulty, blocks, idempotency_key }, call) =>
            guarded('start_mining', log, async () => {
                const clock = deps.clock ?? systemClock;
                const calledAt = clock.now();
                const tooMuch = checkWork(blocks, difficulty, config.maxWork);
                if (tooMuch !== undefined) return toolError(refusalText(tooMuch));
                const started = await workflows.start(mineChainStart({ difficulty, blocks, range_size: NONCE_RANGE_SIZE }), idempotency_key);
                if ('refusal' in started) return toolError(refusalText(started.refusal));
                const { workflowId } = started;
                // The caps' looks after the start (startOrFind.ts) run during the wait; a withdrawal ends the wait.
                const withdrawn = new AbortController();
                let refusal: StartRefusal | undefined;
                const confirmed = (started.confirmation ?? Promise.resolve(undefined)).then((answer) => {
                    refusal = answer;
                    if (answer !== undefined) withdrawn.abort();
                });
                const signal = call.signal === undefined ? withdrawn.signal : AbortSignal.any([call.signal, withdrawn.signal]);
                const options = { pollAfterSeconds: config.pollAfterSeconds, blocksTotal: blocks };
                const outcome = await workflows.watch(workflowId, {
                    budgetMs: config.waitBudgetSeconds * 1000 - (clock.now() - calledAt),
                    signal,
                    onValue: (durable) => {
                        const status = toWorkflowStatus(workflowId, durable, options);
                        if (status.status === 'running' && status.progress !== undefined) call.reportProgress?.(status.progress);
                    },
                });
                // A run that ended within the wait is answered at once, withdrawn or not: nothing of it runs any more.
                if (!outcome.final) {
                    await confirmed;
                    if (refusal !== undefined) return toolError(refusalText(refusal));
                }
                const status =
                    outcome.last === undefined
                        ? running(workflowId, config.pollAfterSeconds, { blocks_done: 0, blocks_total: blocks })
                        : toWorkflowStatus(workflowId, outcome.last, options);
                return statusResult({ ...status, expected_attempts: expectedAttempts(blocks, difficulty) }, config.maxResultChars);
            }),
    };
}

/** A start as a task: the workflow that now exists (the task is the workflow), or why there is none. */
export type TaskStart = { workflowId: string; ttlMs: number | undefined; expectedAttempts: number } | { error: string };

/**
 * start_mining as a task (either era's Tasks): starts the workflow, waits for the cap's two looks, and
 * answers the workflow id the task is, before any answer is sent, so the task exists durably. The ttl is
 * stored in the workflow's input. An idempotency_key dedupes as in a plain call.
 */
export async function startMiningTask(deps: ToolDeps, args: StartMiningArgs, requestedTtl: number | undefined): Promise<TaskStart> {
    const { difficulty, blocks, idempotency_key } = args;
    const ttlMs = requestedTtlMs(requestedTtl);
    if (ttlMs === null) return { error: TTL_REFUSED };
    const tooMuch = checkWork(blocks, difficulty, deps.config.maxWork);
    if (tooMuch !== undefined) return { error: refusalText(tooMuch) };
    const input: MineChainInput = { difficulty, blocks, range_size: NONCE_RANGE_SIZE, ...(ttlMs === undefined ? {} : { task_ttl_ms: ttlMs }) };
    const started = await deps.workflows.start(mineChainStart(input), idempotency_key);
    if ('refusal' in started) return { error: refusalText(started.refusal) };
    const refusal = await started.confirmation;
    if (refusal !== undefined) return { error: refusalText(refusal) };
    return { workflowId: started.workflowId, ttlMs, expectedAttempts: expectedAttempts(blocks, difficulty) };
}

export const TTL_REFUSED = 'task.ttl must be a positive number of milliseconds';

/**
 * The ttl a task-augmented call asked for, as stored with the workflow: a positive whole number of ms,
 * undefined when none was asked for, null for zero, negative or infinite (a client mistake, refused
 * before anything starts).
 */
function requestedTtlMs(ttl: number | undefined): number | undefined | null {
    if (ttl === undefined) return undefined;
    if (!Number.isFinite(ttl) || ttl <= 0) return null;
    return Math.min(Math.ceil(ttl), Number.MAX_SAFE_INTEGER);
}

/** A MineChain start: an idempotency key finds a workflow only with the same difficulty and blocks. */
function mineChainStart(input: MineChainInput): StartRequest {
    return { orchestrator: MINE_CHAIN, input: { ...input }, matchOn: ['difficulty', 'blocks'] };
}

/** The refusal of a call over MAX_WORK (blocks × 2^difficulty expected attempts), or undefined when it fits. */
export function checkWork(blocks: number, difficulty: number, maxWork: number): StartRefusal | undefined {
    const expected = expectedAttempts(blocks, difficulty);
    return expected <= maxWork ? undefined : { kind: 'over_work', blocks, difficulty, expectedAttempts: expected, maxWork };
}
