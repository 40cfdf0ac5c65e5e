import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { workflowUriTemplate } from '../workflowLink';
import { readWorkflowResource, workflowResourceMetadata } from '../workflowResource';

/**
 * Each job's workflow resource, `{scheme}://workflows/{workflow_id}` (../workflowResource.ts). Not listed
 * (resources/list stays empty): a client reaches it through the resource_link in tool answers, and listing
 * would need a caller that can be told apart from others.
 */

/** As the SDK answers a URI that no resource matches: another tenant's workflow looks exactly like an unknown one. */
function resourceNotFound(uri: URL): McpError {
    return new McpError(ErrorCode.InvalidParams, `Resource ${uri.href} not found`);
}

const RESOURCE_ERRORS = {
    notFound: resourceNotFound,
    unavailable: () => new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE),
};

export function registerWorkflowResources(server: McpServer, deps: ToolDeps): void {
    for (const job of deps.jobs) {
        server.registerResource(
            job.resource.name,
            new ResourceTemplate(workflowUriTemplate(job), { list: undefined }),
            workflowResourceMetadata(job),
            (uri, variables) => readWorkflowResource(job, deps, uri, variables.workflow_id, RESOURCE_ERRORS)
        );
    }
}
