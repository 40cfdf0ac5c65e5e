import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { withTimeout } from '../../workflow/client';
import { expiryStep, TTL_EXPIRED_REASON } from '../../workflow/expiry';
import type { DurableStatusLike } from '../../workflow/status';

/**
 * The one place where task expiry changes durable state: one step towards removing a workflow whose
 * task ttl has passed. A workflow that still runs is terminated, never purged: on the real Durable
 * extension a terminate is only a queued message, and deleting the instance's rows before it is applied
 * can turn that message into a poison message, or let it hit a new run started on the same (keyed) id.
 * A workflow that has ended is purged. So an expired, running workflow takes two reads to go: the first
 * terminates it, a later one (once the end is visible) purges it. Best effort: a failure is logged, and
 * the next read that finds the workflow expired tries again. Either way the caller answers as if the
 * workflow did not exist.
 */
export async function retireExpiredWorkflow(deps: ToolDeps, workflowId: string, durable: DurableStatusLike): Promise<void> {
    const step = expiryStep(durable);
    try {
        if (step === 'terminate') {
            await withTimeout(deps.client.terminate(workflowId, TTL_EXPIRED_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        } else {
            await withTimeout(deps.client.purgeInstanceHistory(workflowId), BACKEND_CALL_TIMEOUT_MS, 'The purge request');
        }
    } catch (error) {
        deps.log.warn(`Could not ${step} the expired workflow ${workflowId}`, error);
    }
}
