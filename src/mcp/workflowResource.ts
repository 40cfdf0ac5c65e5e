import type { ToolDeps } from './deps';
import { toWorkflowStatus } from './statusObjects';
import { WorkflowUnavailableError } from '../workflow/workflowService';

/**
 * The workflow resource's read, for both eras' servers (each registers it and words the two failures its
 * own SDK's way): the status JSON that get_mining_result gives, never truncated, so a client can fetch a
 * whole result that a tool answer had to cut. Another tenant's workflow, or an expired one, is unknown
 * like a missing one.
 */

export type WorkflowResourceRead =
    | { contents: Array<{ uri: string; mimeType: string; text: string }> }
    | { failure: 'not_found' | 'unavailable' };

export async function readWorkflowResource(deps: ToolDeps, uri: URL, workflowId: unknown): Promise<WorkflowResourceRead> {
    if (typeof workflowId !== 'string') return { failure: 'not_found' };
    let durable;
    try {
        durable = await deps.workflows.read(workflowId);
    } catch (error) {
        if (error instanceof WorkflowUnavailableError) return { failure: 'unavailable' };
        throw error;
    }
    if (durable === undefined) return { failure: 'not_found' };
    const status = toWorkflowStatus(workflowId, durable, { pollAfterSeconds: deps.config.pollAfterSeconds });
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(status) }] };
}
