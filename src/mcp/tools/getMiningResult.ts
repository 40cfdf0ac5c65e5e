import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolDeps } from '../deps';
import type { CallableTool } from '../toolCalls';
import { anyStatusSchema, guarded, statusResult, toolError } from '../statusSchema';
import { BACKEND_UNAVAILABLE, readStatusRetiringExpired } from './readStatus';
import { workflowIdInput } from './workflowIdInput';
import { isTenantWorkflowId } from '../../workflow/ids';
import { notFound, toWorkflowStatus } from '../../workflow/status';

export const GET_MINING_RESULT_DESCRIPTION =
    'Reports the status of a mining workflow started by start_mining. ' +
    'Pass the workflow_id exactly as start_mining returned it; never make one up. ' +
    'If status is "running", wait poll_after_seconds, then call get_mining_result again with the same workflow_id. ' +
    'If status is "completed", use `result` and stop polling. ' +
    'If status is "failed", stop polling and tell the user the `error`. ' +
    'If status is "not_found", stop polling this id and call start_mining to start a new workflow.';

export function registerGetMiningResult(server: McpServer, deps: ToolDeps): CallableTool {
    const { config, log } = deps;
    const registered = server.registerTool(
        'get_mining_result',
        {
            title: 'Get mining result',
            description: GET_MINING_RESULT_DESCRIPTION,
            inputSchema: workflowIdInput,
            outputSchema: anyStatusSchema,
            annotations: {
                title: 'Get mining result',
                readOnlyHint: true,
                destructiveHint: false,
                idempotentHint: true,
                openWorldHint: false,
            },
        },
        ({ workflow_id }) => guarded('get_mining_result', log, async () => {
            // Checked before the backend sees it (the durable client puts ids into URLs); another
            // tenant's workflow is not_found, like an unknown one.
            if (!isTenantWorkflowId(deps.tenant, workflow_id)) return statusResult(notFound(workflow_id), config.maxResultChars);
            let durable;
            try {
                durable = await readStatusRetiringExpired(deps, workflow_id);
            } catch (error) {
                log.error(`get_mining_result: status read for ${workflow_id} failed`, error);
                return toolError(BACKEND_UNAVAILABLE);
            }
            if (durable === undefined) return statusResult(notFound(workflow_id), config.maxResultChars);
            return statusResult(toWorkflowStatus(workflow_id, durable, { pollAfterSeconds: config.pollAfterSeconds }), config.maxResultChars);
        })
    );
    return { registered };
}
