import type { JobDefinition } from '../jobs/job';

/**
 * A job's workflow resource address, `{scheme}://workflows/{workflow_id}`, and the resource_link that running
 * and completed answers carry to it (the resource itself is read by workflowResource.ts and registered by each era's server).
 */

export function workflowUriTemplate(job: JobDefinition): string {
    return `${job.resource.scheme}://workflows/{workflow_id}`;
}

export function workflowUri(job: JobDefinition, workflowId: string): string {
    return `${job.resource.scheme}://workflows/${workflowId}`;
}

export interface ResourceLinkItem {
    type: 'resource_link';
    uri: string;
    name: string;
    title: string;
    description: string;
    mimeType: string;
}

export function workflowResourceLink(job: JobDefinition, workflowId: string): ResourceLinkItem {
    return {
        type: 'resource_link',
        uri: workflowUri(job, workflowId),
        name: `${job.resource.name}-${workflowId}`,
        title: job.resource.title,
        description: 'The status of this workflow as JSON, with the whole result when completed (never truncated).',
        mimeType: 'application/json',
    };
}
