import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import type { DurableStatusLike } from '../../workflow/status';

/**
 * One status read. Resolves undefined when the backend has no such instance (its 404), and rejects
 * on any other backend failure, including no answer within BACKEND_CALL_TIMEOUT_MS.
 */
export async function readDurableStatus(deps: ToolDeps, workflowId: string): Promise<DurableStatusLike | undefined> {
    try {
        return await withTimeout(
            deps.client.getStatus(workflowId, { showInput: true }),
            BACKEND_CALL_TIMEOUT_MS,
            'The workflow status read'
        );
    } catch (error) {
        if (isNotFoundError(error)) return undefined;
        throw error;
    }
}

/** The message for a backend failure: no URLs, keys or stack traces from the durable client's error. */
export const BACKEND_UNAVAILABLE =
    'The workflow service did not answer, so the status is unknown. Try again in a few seconds.';
