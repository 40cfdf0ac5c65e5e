import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { DIFFICULTY_LIMIT, MINE_BLOCK } from '../workflow/contracts';
import { watchForEnd, type EndWatch } from '../workflow/endWatch';
import { mineBlockActivity } from '../workflow/mineBlock';

/** How often a running MineBlock checks whether its orchestration has ended (cancel_mining). */
const END_WATCH_INTERVAL_MS = 2000;

// The hashing rule's own bound, not MAX_DIFFICULTY: a redeploy that lowers the setting must not fail the
// ranges of workflows already running (start_mining holds new work to the setting).
const mineBlock = mineBlockActivity(DIFFICULTY_LIMIT);

/** Watches the calling orchestration through the durable client binding, when the host provides one. */
function watchOrchestration(context: InvocationContext): EndWatch | undefined {
    const instanceId = context.triggerMetadata?.instanceId;
    if (typeof instanceId !== 'string') return undefined;
    let client: df.DurableClient;
    try {
        client = df.getClient(context);
    } catch (error) {
        // Only an optimisation: without a client the block is still mined, just not stopped early.
        context.warn('MineBlock: no durable client binding, so a cancelled workflow cannot stop this search early', error);
        return undefined;
    }
    return watchForEnd(async () => (await client.getStatus(instanceId)).runtimeStatus, END_WATCH_INTERVAL_MS);
}

df.app.activity(MINE_BLOCK, {
    extraInputs: [df.input.durableClient()],
    handler: async (input: unknown, context: InvocationContext) => {
        const watch = watchOrchestration(context);
        try {
            return await mineBlock(input, watch?.signal);
        } finally {
            watch?.stop();
        }
    },
});
