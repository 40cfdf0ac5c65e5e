import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import { isExpired } from '../../workflow/expiry';
import { isTerminal, type DurableStatusLike } from '../../workflow/status';

/**
 * One status read. Resolves undefined when the backend has no such instance (its 404) or when the
 * instance has outlived the ttl its MCP task asked for (it is then ended and purged, so every tool, task
 * method and resource read agrees that it is gone). Rejects on any other backend failure, including no
 * answer within BACKEND_CALL_TIMEOUT_MS.
 */
export async function readDurableStatus(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    let durable: DurableStatusLike;
    try {
        durable = await withTimeout(
            deps.client.getStatus(workflowId, { showInput: true }),
            BACKEND_CALL_TIMEOUT_MS,
            'The workflow status read'
        );
    } catch (error) {
        if (isNotFoundError(error)) return undefined;
        throw error;
    }
    if (isExpired(durable, (deps.wallNow ?? Date.now)())) {
        await expire(deps, workflowId, durable);
        return undefined;
    }
    return durable;
}

/** The reason given when a task's ttl ends a workflow that still runs. */
export const TTL_EXPIRED_REASON = 'task ttl expired';

/**
 * Ends and purges an expired workflow, best effort: a purge fails while a just-terminated instance
 * still shows as running, and then the next read that finds it expired tries again. Either way the
 * caller answers as if the workflow did not exist.
 */
async function expire(deps: ToolDeps, workflowId: string, durable: DurableStatusLike): Promise<void> {
    try {
        if (!isTerminal(durable.runtimeStatus)) {
            await withTimeout(deps.client.terminate(workflowId, encodeURIComponent(TTL_EXPIRED_REASON)), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        }
        await withTimeout(deps.client.purgeInstanceHistory(workflowId), BACKEND_CALL_TIMEOUT_MS, 'The purge request');
    } catch (error) {
        deps.log.warn(`Could not end and purge the expired workflow ${workflowId}`, error);
    }
}

/** The message for a backend failure: no URLs, keys or stack traces from the durable client's error. */
export const BACKEND_UNAVAILABLE =
    'The workflow service did not answer, so the status is unknown. Try again in a few seconds.';
