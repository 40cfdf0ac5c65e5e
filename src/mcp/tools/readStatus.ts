import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import { isExpired } from '../../workflow/expiry';
import type { DurableStatusLike } from '../../workflow/status';
import { retireExpiredWorkflow } from './retireExpired';

/**
 * One status read, without side effects. Resolves undefined when the backend has no such instance (its
 * 404) or when the instance has outlived the ttl its MCP task asked for (so every tool, task method and
 * resource read agrees that it is gone). Rejects on any other backend failure, including no answer within
 * BACKEND_CALL_TIMEOUT_MS. The waits that poll (start_mining's budget, cancel's wait for the end) and the
 * keyed start use this one.
 */
export async function readDurableStatus(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    const durable = await readStored(deps, workflowId);
    return durable === undefined || isExpired(durable, wallNow(deps)) ? undefined : durable;
}

/**
 * The same read, and when it finds the instance past its ttl, one step of retiring it (retireExpired.ts:
 * terminate while it runs, purge once it has ended). For the one-shot reads a client makes of a workflow
 * (get_mining_result, tasks/get, tasks/result, the resource): with no timer of its own, that is when the
 * app sees an expired task.
 */
export async function readStatusRetiringExpired(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    const durable = await readStored(deps, workflowId);
    if (durable === undefined) return undefined;
    if (!isExpired(durable, wallNow(deps))) return durable;
    await retireExpiredWorkflow(deps, workflowId, durable);
    return undefined;
}

async function readStored(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    try {
        return await withTimeout(deps.client.getStatus(workflowId, { showInput: true }), BACKEND_CALL_TIMEOUT_MS, 'The workflow status read');
    } catch (error) {
        if (isNotFoundError(error)) return undefined;
        throw error;
    }
}

function wallNow(deps: ToolDeps): number {
    return (deps.wallNow ?? Date.now)();
}

/** The message for a backend failure: no URLs, keys or stack traces from the durable client's error. */
export const BACKEND_UNAVAILABLE =
    'The workflow service did not answer, so the status is unknown. Try again in a few seconds.';
