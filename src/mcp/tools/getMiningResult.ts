import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { notFound, toWorkflowStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { workflowIdTool, type workflowIdInput } from './workflowIdInput';
import { WorkflowUnavailableError } from '../../workflow/workflowService';

export const GET_MINING_RESULT_DESCRIPTION =
    'Reports the status of a mining workflow started by start_mining. ' +
    'Pass the workflow_id exactly as start_mining returned it; never make one up. ' +
    'If status is "running", wait poll_after_seconds, then call get_mining_result again with the same workflow_id. ' +
    'If status is "completed", use `result` and stop polling. ' +
    'If status is "failed", stop polling and tell the user the `error`. ' +
    'If status is "not_found", stop polling this id and call start_mining to start a new workflow.';

export function getMiningResultTool(deps: ToolDeps): ToolDefinition<typeof workflowIdInput> {
    const { config, log, workflows } = deps;
    return workflowIdTool({
        name: 'get_mining_result',
        title: 'Get mining result',
        description: GET_MINING_RESULT_DESCRIPTION,
        annotations: { title: 'Get mining result', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        call: ({ workflow_id }) =>
            guarded('get_mining_result', log, async () => {
                let durable;
                try {
                    // Another tenant's workflow, or an expired one, is not_found like an unknown one.
                    durable = await workflows.read(workflow_id);
                } catch (error) {
                    if (error instanceof WorkflowUnavailableError) return toolError(BACKEND_UNAVAILABLE);
                    throw error;
                }
                const status = durable === undefined ? notFound(workflow_id) : toWorkflowStatus(workflow_id, durable, { pollAfterSeconds: config.pollAfterSeconds });
                return statusResult(status, config.maxResultChars);
            }),
    });
}
