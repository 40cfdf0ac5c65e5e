import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Config } from '../../config';
import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { progressReporter } from '../progress';
import { guarded, startStatusSchema, statusResult, toolError } from '../statusSchema';
import { readDurableStatus } from './readStatus';
import { budgetedWait, systemClock } from '../../workflow/budgetedWait';
import { withTimeout } from '../../workflow/client';
import { MINE_CHAIN, type MineChainInput } from '../../workflow/contracts';
import { newWorkflowId } from '../../workflow/ids';
import { isTerminal, running, toWorkflowStatus, type DurableStatusLike } from '../../workflow/status';

export function startMiningDescription(waitBudgetSeconds: number): string {
    return (
        'Mines a chain of SHA-256 proof-of-work blocks as a durable background workflow, waiting up to ' +
        `${waitBudgetSeconds} seconds for it to finish. ` +
        'If status is "completed", use `result`. ' +
        'If status is "running", call get_mining_result with the returned workflow_id after poll_after_seconds, ' +
        'and keep polling that way until status is "completed" or "failed". ' +
        'If status is "failed", do not poll; tell the user the `error`. ' +
        'Each extra bit of difficulty doubles the expected work.'
    );
}

/** The input schema for a configuration; built once per configuration, not per request (zod schemas are costly to build). */
const inputSchemas = new WeakMap<Config, ReturnType<typeof buildInputSchema>>();

function buildInputSchema(config: Config) {
    const { maxDifficulty, defaultDifficulty, maxBlocks, chainLength } = config;
    const difficultyBound = `difficulty must be an integer from 0 to ${maxDifficulty}`;
    const blocksBound = `blocks must be an integer from 1 to ${maxBlocks}`;
    return {
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
    };
}

export function registerStartMining(server: McpServer, deps: ToolDeps): void {
    const { config, log } = deps;
    let inputSchema = inputSchemas.get(config);
    if (inputSchema === undefined) {
        inputSchema = buildInputSchema(config);
        inputSchemas.set(config, inputSchema);
    }

    server.registerTool(
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
                // Every call starts another workflow.
                idempotentHint: false,
                // It talks to this app's own workflow backend only.
                openWorldHint: false,
            },
        },
        ({ difficulty, blocks }, extra) => guarded('start_mining', log, async () => {
            const clock = deps.clock ?? systemClock;
            const calledAt = clock.now();
            const workflowId = newWorkflowId();
            const input: MineChainInput = { difficulty, blocks };
            try {
                await withTimeout(
                    deps.client.startNew(MINE_CHAIN, { instanceId: workflowId, input }),
                    BACKEND_CALL_TIMEOUT_MS,
                    'The start request'
                );
            } catch (error) {
                log.error(`start_mining: could not start ${MINE_CHAIN} ${workflowId}`, error);
                return toolError('Could not start the mining workflow: the workflow service did not accept it. Try again in a minute.');
            }

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
                signal: extra.signal,
                clock,
            });

            const status =
                outcome.last === undefined
                    ? running(workflowId, config.pollAfterSeconds, { blocks_done: 0, blocks_total: blocks })
                    : toWorkflowStatus(workflowId, outcome.last, options);
            return statusResult(status);
        })
    );
}
