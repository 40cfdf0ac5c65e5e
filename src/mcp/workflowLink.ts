/**
 * The workflow resource's address, `mining://workflows/{workflow_id}`, and the resource_link that running
 * and completed answers carry to it (the resource itself is read by workflowResource.ts and registered by each era's server).
 */

export const WORKFLOW_URI_TEMPLATE = 'mining://workflows/{workflow_id}';

export function workflowUri(workflowId: string): string {
    return `mining://workflows/${workflowId}`;
}

export interface ResourceLinkItem {
    type: 'resource_link';
    uri: string;
    name: string;
    title: string;
    description: string;
    mimeType: string;
}

export function workflowResourceLink(workflowId: string): ResourceLinkItem {
    return {
        type: 'resource_link',
        uri: workflowUri(workflowId),
        name: `mining-workflow-${workflowId}`,
        title: 'Mining workflow status',
        description: 'The status of this workflow as JSON, with the whole result when completed (never truncated).',
        mimeType: 'application/json',
    };
}
