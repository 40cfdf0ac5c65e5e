import type { ToolDeps } from './deps';
import { toWorkflowStatus } from './statusObjects';
import type { JobDefinition } from '../jobs/job';
import { WorkflowUnavailableError } from '../workflow/workflowService';

/**
 * A job's workflow resource, for both eras' servers (each registers it, and says the two failures its
 * own SDK's way): the status JSON that the job's get tool gives, never truncated, so a client can fetch a
 * whole result that a tool answer had to cut. Another tenant's workflow, an expired one or another job's
 * is unknown like a missing one.
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

/** How the resource template is listed. */
export function workflowResourceMetadata(job: JobDefinition): { title: string; description: string; mimeType: string } {
    return {
        title: job.resource.title,
        description: `The status JSON of one ${job.noun} (as ${job.tools.get.name} reports it), with the whole result.`,
        mimeType: 'application/json',
    };
}

export async function readWorkflowResource(
    job: JobDefinition,
    deps: ToolDeps,
    uri: URL,
    workflowId: unknown,
    errors: ResourceErrors
): Promise<ResourceContents> {
    if (typeof workflowId !== 'string') throw errors.notFound(uri);
    let durable;
    try {
        durable = await deps.workflows.read(workflowId, job.orchestrator);
    } catch (error) {
        throw error instanceof WorkflowUnavailableError ? errors.unavailable() : error;
    }
    if (durable === undefined) throw errors.notFound(uri);
    const status = toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds: deps.config.pollAfterSeconds, nowMs: (deps.wallNow ?? Date.now)() });
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(status) }] };
}
