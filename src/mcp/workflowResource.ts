import type { ToolDeps } from './deps';
import { toWorkflowStatus } from './statusObjects';
import { WorkflowUnavailableError } from '../workflow/workflowService';

/**
 * The workflow resource's read, for both eras' servers (each registers it, and says the two failures its
 * own SDK's way): the status JSON that get_mining_result gives, never truncated, so a client can fetch a
 * whole result that a tool answer had to cut. Another tenant's workflow, or an expired one, is unknown
 * like a missing one.
 */

export interface ResourceContents {
    [key: string]: unknown;
    contents: Array<{ uri: string; mimeType: string; text: string }>;
}

/** How an era's SDK says the two failures of a read. */
export interface ResourceErrors {
    notFound(uri: URL): Error;
    unavailable(): Error;
}

export async function readWorkflowResource(deps: ToolDeps, uri: URL, workflowId: unknown, errors: ResourceErrors): Promise<ResourceContents> {
    if (typeof workflowId !== 'string') throw errors.notFound(uri);
    let durable;
    try {
        durable = await deps.workflows.read(workflowId);
    } catch (error) {
        throw error instanceof WorkflowUnavailableError ? errors.unavailable() : error;
    }
    if (durable === undefined) throw errors.notFound(uri);
    const status = toWorkflowStatus(workflowId, durable, { pollAfterSeconds: deps.config.pollAfterSeconds });
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(status) }] };
}
