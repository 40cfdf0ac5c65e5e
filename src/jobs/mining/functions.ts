import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { z } from 'zod';
import { DIFFICULTY_LIMIT, MINE_BLOCK, MINE_CHAIN, blockSuperseded } from './contracts';
import { watchForEnd, type EndWatch } from '../endWatch';
import { ManagementApiClient } from '../../workflow/managementClient';
import { mineBlockActivity } from './mineBlockActivity';
import { mineChainOrchestrator } from './mineChainOrchestrator';

/**
 * How often a running MineBlock checks whether its orchestration has ended (cancel_mining) or has accepted
 * its block already (a range in flight above the hit): the most a wasted range runs on, plus one status read.
 */
const END_WATCH_INTERVAL_MS = 2000;

// The hashing rule's own bound, not MAX_DIFFICULTY: a redeploy that lowers the setting must not fail the
// ranges of workflows already running (start_mining holds new work to the setting).
const mineBlock = mineBlockActivity(DIFFICULTY_LIMIT);

const clientInput = df.input.durableClient();

/**
 * Watches the calling orchestration through the durable client binding, when the host provides one, with
 * the app's management API client: its errors carry the HTTP status, so a purged instance (404) ends the watch.
 */
const blockIndexSchema = z.object({ index: z.number().int().min(0) });

function watchOrchestration(context: InvocationContext, input: unknown): EndWatch | undefined {
    const instanceId = context.triggerMetadata?.instanceId;
    if (typeof instanceId !== 'string') return undefined;
    let client: ManagementApiClient;
    try {
        client = new ManagementApiClient(context.extraInputs.get(clientInput));
    } catch (error) {
        // Only an optimisation: without a client the block is still mined, just not stopped early.
        context.warn('MineBlock: no durable client binding, so a cancelled workflow cannot stop this search early', error);
        return undefined;
    }
    const block = blockIndexSchema.safeParse(input);
    return watchForEnd(
        async () => {
            const { runtimeStatus, customStatus } = await client.getStatus(instanceId, { showInput: false });
            return { runtimeStatus, customStatus };
        },
        END_WATCH_INTERVAL_MS,
        blockSuperseded(block.success ? block.data.index : undefined)
    );
}

/** MineChain and MineBlock. No settings here: what a replay depends on is in each workflow's input or fixed (contracts.ts). */
export function registerMiningFunctions(): void {
    df.app.orchestration(MINE_CHAIN, mineChainOrchestrator());
    df.app.activity(MINE_BLOCK, {
        extraInputs: [clientInput],
        handler: async (input: unknown, context: InvocationContext) => {
            const watch = watchOrchestration(context, input);
            try {
                const answer = await mineBlock(input, watch?.signal);
                // Information, not a failure: monitoring counts failures, and a cancelled run is none.
                if (watch?.signal.aborted && !answer.found) {
                    context.log('MineBlock: the search stopped early: its workflow has ended (cancelled, or purged) or has its block from a lower range');
                }
                return answer;
            } finally {
                watch?.stop();
            }
        },
    });
}
