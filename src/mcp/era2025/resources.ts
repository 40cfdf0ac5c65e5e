import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { WORKFLOW_URI_TEMPLATE } from '../workflowLink';
import { readWorkflowResource } from '../workflowResource';

/**
 * The workflow resource: `mining://workflows/{workflow_id}` reads as the status JSON that
 * get_mining_result gives, never truncated, so a client can fetch a whole result that a tool answer
 * had to cut. Not listed (resources/list stays empty): a client reaches it through the resource_link
 * in tool answers, and listing would need a caller that can be told apart from others.
 */

/** As the SDK answers a URI that no resource matches: another tenant's workflow looks exactly like an unknown one. */
function resourceNotFound(uri: URL): McpError {
    return new McpError(ErrorCode.InvalidParams, `Resource ${uri.href} not found`);
}

const RESOURCE_ERRORS = {
    notFound: resourceNotFound,
    unavailable: () => new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE),
};

/** How the resource template is listed, for both eras' servers. */
export const WORKFLOW_RESOURCE_NAME = 'mining-workflow';
export const WORKFLOW_RESOURCE_METADATA = {
    title: 'Mining workflow status',
    description: 'The status JSON of one mining workflow (as get_mining_result reports it), with the whole result.',
    mimeType: 'application/json',
};

export function registerWorkflowResource(server: McpServer, deps: ToolDeps): void {
    server.registerResource(
        WORKFLOW_RESOURCE_NAME,
        new ResourceTemplate(WORKFLOW_URI_TEMPLATE, { list: undefined }),
        WORKFLOW_RESOURCE_METADATA,
        (uri, variables) => readWorkflowResource(deps, uri, variables.workflow_id, RESOURCE_ERRORS)
    );
}
