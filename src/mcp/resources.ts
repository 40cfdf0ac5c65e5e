import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from './deps';
import { BACKEND_UNAVAILABLE, readStatusRetiringExpired } from './tools/readStatus';
import { isTenantWorkflowId } from '../workflow/ids';
import { toWorkflowStatus } from '../workflow/status';

/**
 * The workflow resource: `mining://workflows/{workflow_id}` reads as the status JSON that
 * get_mining_result gives, never truncated, so a client can fetch a whole result that a tool answer
 * had to cut. Not listed (resources/list stays empty): a client reaches it through the resource_link
 * in tool answers, and listing would need a caller that can be told apart from others.
 */

export const WORKFLOW_URI_TEMPLATE = 'mining://workflows/{workflow_id}';

export function workflowUri(workflowId: string): string {
    return `mining://workflows/${workflowId}`;
}

/** The link that running and completed answers carry. */
export function workflowResourceLink(workflowId: string): ResourceLink {
    return {
        type: 'resource_link',
        uri: workflowUri(workflowId),
        name: `mining-workflow-${workflowId}`,
        title: 'Mining workflow status',
        description: 'The status of this workflow as JSON, with the whole result when completed (never truncated).',
        mimeType: 'application/json',
    };
}

/** As the SDK answers a URI that no resource matches: another tenant's workflow looks exactly like an unknown one. */
function resourceNotFound(uri: URL): McpError {
    return new McpError(ErrorCode.InvalidParams, `Resource ${uri.href} not found`);
}

/** What the workflow resource is, for every era's server. */
export const workflowResourceDefinition = {
    name: 'mining-workflow',
    uriTemplate: WORKFLOW_URI_TEMPLATE,
    metadata: {
        title: 'Mining workflow status',
        description: 'The status JSON of one mining workflow (as get_mining_result reports it), with the whole result.',
        mimeType: 'application/json',
    },
} as const;

export type WorkflowResourceRead =
    | { kind: 'found'; contents: Array<{ uri: string; mimeType: string; text: string }> }
    | { kind: 'not_found' }
    | { kind: 'unavailable' };

/** One read of the workflow resource, whichever era asks; each era's server turns the misses into its own errors. */
export async function readWorkflowResource(deps: ToolDeps, uri: URL, workflowId: unknown): Promise<WorkflowResourceRead> {
    // Checked before the backend sees it, as the tools do.
    if (typeof workflowId !== 'string' || !isTenantWorkflowId(deps.tenant, workflowId)) return { kind: 'not_found' };
    let durable;
    try {
        durable = await readStatusRetiringExpired(deps, workflowId);
    } catch (error) {
        deps.log.error(`resources/read: status read for ${workflowId} failed`, error);
        return { kind: 'unavailable' };
    }
    if (durable === undefined) return { kind: 'not_found' };
    const status = toWorkflowStatus(workflowId, durable, { pollAfterSeconds: deps.config.pollAfterSeconds });
    return { kind: 'found', contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(status) }] };
}

export function registerWorkflowResource(server: McpServer, deps: ToolDeps): void {
    const { name, uriTemplate, metadata } = workflowResourceDefinition;
    server.registerResource(name, new ResourceTemplate(uriTemplate, { list: undefined }), metadata, async (uri, variables) => {
        const read = await readWorkflowResource(deps, uri, variables.workflow_id);
        if (read.kind === 'unavailable') throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
        if (read.kind === 'not_found') throw resourceNotFound(uri);
        return { contents: read.contents };
    });
}
