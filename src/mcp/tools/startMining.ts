import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, CreateTaskResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { DurableTaskStore } from '../tasks/durableTaskStore';
import type { CallableTool } from '../toolCalls';
import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { progressReporter, type ToolExtra } from '../progress';
import { progressMessage } from '../progressMessage';
import { guarded, startStatusSchema, statusResult, toolError } from '../statusSchema';
import { BACKEND_UNAVAILABLE, readDurableStatus } from './readStatus';
import { admitStart, confirmStart, expectedAttempts, isWithdrawn, workCapError } from './workCaps';
import { budgetedWait, systemClock } from '../../workflow/budgetedWait';
import { withTimeout } from '../../workflow/client';
import { MINE_CHAIN, NONCE_RANGE_SIZE, type MineChainInput } from '../../workflow/contracts';
import { keyedWorkflowId, newWorkflowId } from '../../workflow/ids';
import { isTerminal, running, toWorkflowStatus, type DurableStatusLike } from '../../workflow/status';

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

export const KEY_REUSED =
    'This idempotency_key was already used with other arguments. Use a new key for different work, or the same ' +
    'arguments to get the workflow the key started.';

const START_REFUSED = 'Could not start the mining workflow: the workflow service did not accept it. Try again in a minute.';

/** The arguments a workflow was started with, from its stored input (absent when the backend shows none). */
const storedInputSchema = z.object({ difficulty: z.number(), blocks: z.number() });

function sameArguments(durable: DurableStatusLike, input: MineChainInput): boolean {
    const stored = storedInputSchema.safeParse(durable.input);
    return stored.success && stored.data.difficulty === input.difficulty && stored.data.blocks === input.blocks;
}

/** Said when a keyed start was accepted but the workflow it names could not be read back to check its arguments. */
const START_UNCONFIRMED =
    'The mining workflow may have started, but it could not be confirmed. Call start_mining again with the same ' +
    'idempotency_key and arguments in a few seconds: that is safe and returns the workflow.';

/** How long a keyed start waits for the workflow its key names to be readable, to compare its arguments. */
export const KEYED_START_CHECK_MS = 5_000;

/**
 * A workflow this call may hand out; when the call started it, `confirmation` settles with the cap's
 * refusal if the workflow had to be withdrawn (workCaps.ts, confirmStart), else with undefined.
 */
interface Started {
    workflowId: string;
    confirmation?: Promise<string | undefined>;
}

/**
 * Starts the workflow, or with an idempotency key finds the one the key already started. The key names
 * one workflow id per tenant, so a retry reads that id first and compares the arguments it was started
 * with. Two first calls racing on one key both try to start that id, and no backend tells the loser
 * reliably that it lost: on the real Durable extension (Azure Storage provider) concurrent starts on a new
 * id can all be accepted (202) while only the first one's input is kept and run, and a start on an id that
 * is running answers 409. So after its start, whatever the answer, a keyed call reads the workflow back and
 * hands it out only if it runs this call's arguments; otherwise the key was taken by other work (KEY_REUSED).
 * The instance row the read shows is written by the accepted start itself, conditionally (only the first
 * writer of a new id, or of an ended id's row, succeeds), and it is that start's message that runs: so its
 * input, read right after the start, is already the input that runs, Pending or not.
 * The key is remembered as long as the workflow's history is kept.
 */
async function startOrFind(
    deps: ToolDeps,
    input: MineChainInput,
    idempotencyKey: string | undefined
): Promise<Started | { error: string }> {
    const { log, tenant, config } = deps;
    const tooMuch = workCapError(input.blocks, input.difficulty, config.maxWork);
    if (tooMuch !== undefined) return { error: tooMuch };
    if (idempotencyKey === undefined) {
        const refused = await admitStart(deps);
        if (refused !== undefined) return { error: refused };
        const workflowId = newWorkflowId(tenant);
        try {
            await startNew(deps, workflowId, input);
        } catch (error) {
            log.error(`start_mining: could not start ${MINE_CHAIN} ${workflowId}`, error);
            return { error: START_REFUSED };
        }
        return { workflowId, confirmation: confirmStart(deps, workflowId) };
    }

    const workflowId = keyedWorkflowId(tenant, idempotencyKey);
    const judge = (durable: DurableStatusLike) => (sameArguments(durable, input) ? { workflowId } : { error: KEY_REUSED });
    try {
        const found = await readDurableStatus(deps, workflowId);
        // A workflow the cap withdrew was never handed out: the key starts it again (a start on an ended id replaces it).
        if (found !== undefined && !isWithdrawn(found)) return judge(found);
    } catch (error) {
        log.error(`start_mining: status read for ${workflowId} failed`, error);
        return { error: BACKEND_UNAVAILABLE };
    }

    const refused = await admitStart(deps);
    if (refused !== undefined) return { error: refused };

    let startError: unknown;
    try {
        await startNew(deps, workflowId, input);
    } catch (error) {
        // Most likely another call with the same key started it first: the read below tells.
        startError = error;
    }
    // A refused start leaves whatever refused it to be read at once; an accepted one is waited for, briefly.
    const stored = startError === undefined ? await readBack(deps, workflowId) : await readOnce(deps, workflowId);
    if (stored !== undefined) {
        const judged = judge(stored);
        return 'error' in judged ? judged : { workflowId, confirmation: confirmStart(deps, workflowId) };
    }
    if (startError !== undefined) {
        log.error(`start_mining: could not start ${MINE_CHAIN} ${workflowId}`, startError);
        return { error: START_REFUSED };
    }
    log.error(`start_mining: ${workflowId} was accepted but could not be read back within ${KEYED_START_CHECK_MS} ms`);
    return { error: START_UNCONFIRMED };
}

/** The keyed workflow as stored, or undefined when it is not there or the read failed (logged). */
async function readOnce(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    try {
        return await readDurableStatus(deps, workflowId);
    } catch (error) {
        deps.log.warn(`start_mining: status read for ${workflowId} failed`, error);
        return undefined;
    }
}

/** The keyed workflow as stored, waiting (bounded) for it to be readable; undefined if it never was. */
async function readBack(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    const outcome = await budgetedWait<DurableStatusLike>({
        read: () => readOnce(deps, workflowId),
        isFinal: () => true,
        budgetMs: KEYED_START_CHECK_MS,
        clock: deps.clock,
    });
    return outcome.last;
}

async function startNew(deps: ToolDeps, workflowId: string, input: MineChainInput): Promise<void> {
    await withTimeout(deps.client.startNew(MINE_CHAIN, { instanceId: workflowId, input }), BACKEND_CALL_TIMEOUT_MS, 'The start request');
}

function buildInputSchema(config: ToolDeps['config']) {
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
const inputSchemas = new WeakMap<ToolDeps['config'], ReturnType<typeof buildInputSchema>>();

function startInputSchema(config: ToolDeps['config']): ReturnType<typeof buildInputSchema> {
    let schema = inputSchemas.get(config);
    if (schema === undefined) {
        schema = buildInputSchema(config);
        inputSchemas.set(config, schema);
    }
    return schema;
}

/**
 * The ttl a task-augmented call asked for, as stored with the workflow: a positive whole number of ms, or
 * none when none was asked for. Zero, negative or infinite is a client mistake, refused before anything starts.
 */
function requestedTtlMs(ttl: number | undefined): number | undefined {
    if (ttl === undefined) return undefined;
    if (!Number.isFinite(ttl) || ttl <= 0) throw new Error('task.ttl must be a positive number of milliseconds');
    return Math.min(Math.ceil(ttl), Number.MAX_SAFE_INTEGER);
}

/**
 * start_mining: a task tool with taskSupport 'optional'. A task-augmented call (MCP Tasks) starts the
 * workflow and answers at once with the task, whose id is the workflow id; the client then polls with
 * tasks/get and fetches the answer with tasks/result. A plain call keeps the budgeted wait: it is
 * answered by plainCall (toolCalls.ts), not by SDK 1.32's unbounded automatic task polling. Both go
 * through startOrFind, so an idempotency_key dedupes either way: the task id of a keyed call is the
 * keyed workflow id.
 */
export function registerStartMining(server: McpServer, deps: ToolDeps, taskStore: DurableTaskStore): CallableTool {
    const { config, log } = deps;
    const inputSchema = startInputSchema(config);

    async function plainCall(args: unknown, extra: ToolExtra): Promise<CallToolResult> {
        const { difficulty, blocks, idempotency_key } = inputSchema.parse(args);
        return guarded('start_mining', log, async () => {
            const clock = deps.clock ?? systemClock;
            const calledAt = clock.now();
            const input: MineChainInput = { difficulty, blocks, range_size: NONCE_RANGE_SIZE };
            const started = await startOrFind(deps, input, idempotency_key);
            if ('error' in started) return toolError(started.error);
            const { workflowId } = started;
            // The cap's second look runs during the wait; a withdrawal ends the wait.
            const withdrawn = new AbortController();
            let refusal: string | undefined;
            const confirmed = (started.confirmation ?? Promise.resolve(undefined)).then((answer) => {
                refusal = answer;
                if (answer !== undefined) withdrawn.abort();
            });
            const signal = extra.signal === undefined ? withdrawn.signal : AbortSignal.any([extra.signal, withdrawn.signal]);

            const options = { pollAfterSeconds: config.pollAfterSeconds, blocksTotal: blocks };
            const report = progressReporter(extra, log);
            const outcome = await budgetedWait<DurableStatusLike>({
                read: async () => {
                    try {
                        // Undefined (not visible yet) right after startNew is no reason to stop waiting.
                        return await readDurableStatus(deps, workflowId);
                    } catch (error) {
                        // The workflow exists; a failed read only means less is known. Keep waiting.
                        log.warn(`start_mining: status read for ${workflowId} failed`, error);
                        return undefined;
                    }
                },
                isFinal: (durable) => isTerminal(durable.runtimeStatus),
                onValue: (durable) => {
                    const status = toWorkflowStatus(workflowId, durable, options);
                    if (status.status === 'running' && status.progress !== undefined) report(status.progress);
                },
                // The budget covers the whole call, the start request included.
                budgetMs: config.waitBudgetSeconds * 1000 - (clock.now() - calledAt),
                signal,
                clock,
            });
            await confirmed;
            // A run that ended within the wait is answered, withdrawn or not: nothing of it runs any more.
            if (refusal !== undefined && !outcome.final) return toolError(refusal);

            const status =
                outcome.last === undefined
                    ? running(workflowId, config.pollAfterSeconds, { blocks_done: 0, blocks_total: blocks })
                    : toWorkflowStatus(workflowId, outcome.last, options);
            return statusResult({ ...status, expected_attempts: expectedAttempts(blocks, difficulty) }, config.maxResultChars);
        });
    }

    async function createTask(args: unknown, extra: ToolExtra): Promise<CreateTaskResult> {
        const { difficulty, blocks, idempotency_key } = inputSchema.parse(args);
        const ttl = requestedTtlMs(extra.taskRequestedTtl);
        const input: MineChainInput = { difficulty, blocks, range_size: NONCE_RANGE_SIZE, ...(ttl === undefined ? {} : { task_ttl_ms: ttl }) };
        const started = await startOrFind(deps, input, idempotency_key);
        // Thrown, it is the JSON-RPC error of the tools/call (toolCalls.ts): no task exists.
        if ('error' in started) throw new Error(started.error);
        const refusal = await started.confirmation;
        if (refusal !== undefined) throw new Error(refusal);
        const { workflowId } = started;
        // The task as the backend sees it (a keyed call may find one that already ended)...
        const task = await taskStore.getTask(workflowId).catch((error: unknown) => {
            log.warn(`start_mining: task read for ${workflowId} failed`, error);
            return null;
        });
        // What the run costs, in the answer that commits it (a Task has no field of its own for it).
        const cost = { expected_attempts: expectedAttempts(blocks, difficulty) };
        if (task !== null) return { task, _meta: cost };
        // ...or, right after the start, as it was started: the workflow exists, so the task does.
        const now = new Date((deps.wallNow ?? Date.now)()).toISOString();
        const working: Task = {
            taskId: workflowId,
            status: 'working',
            ttl: ttl ?? null,
            createdAt: now,
            lastUpdatedAt: now,
            pollInterval: config.pollAfterSeconds * 1000,
            statusMessage: progressMessage({ blocks_done: 0, blocks_total: blocks }),
        };
        return { task: working, _meta: cost };
    }

    const registered = server.experimental.tasks.registerToolTask(
        'start_mining',
        {
            title: 'Start mining',
            description: startMiningDescription(config.waitBudgetSeconds),
            inputSchema,
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
            execution: { taskSupport: 'optional' },
        },
        {
            createTask,
            // SDK 1.32 answers tasks/get and tasks/result from the task store and never calls these two.
            getTask: async (_args, extra) => {
                const task = await taskStore.getTask(extra.taskId);
                if (task === null) throw new Error('Task not found');
                return task;
            },
            getTaskResult: (_args, extra) => taskStore.getTaskResult(extra.taskId),
        }
    );
    return { registered, plainCall };
}
