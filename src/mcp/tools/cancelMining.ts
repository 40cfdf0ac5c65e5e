import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { notFound, toWorkflowStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { workflowIdTool, type workflowIdInput } from './workflowIdInput';

export const CANCEL_MINING_DESCRIPTION =
    'Cancels a mining workflow started by start_mining and reports its status afterwards. ' +
    'Call it only when the user wants the work stopped. ' +
    'Expect status "failed" with reason "cancelled"; do not poll that workflow again. ' +
    'A workflow that had already ended keeps its status ("completed": use `result`; "failed": report `error`). ' +
    'If status is "running", the cancellation is not visible yet: call get_mining_result after poll_after_seconds. ' +
    'If status is "not_found", no workflow has this id: do not retry it.';

/** The `next` of a workflow still running when cancel_mining's wait ends: honest that the end is not visible yet. */
export function cancelNotVisibleNext(workflowId: string, pollAfterSeconds: number): string {
    return (
        `Cancellation was requested but has not taken effect yet. Call get_mining_result with workflow_id "${workflowId}" ` +
        `in about ${pollAfterSeconds} seconds; expect status "failed" with reason "cancelled".`
    );
}

export function cancelMiningTool(deps: ToolDeps): ToolDefinition<typeof workflowIdInput> {
    const { config, log, workflows } = deps;
    return workflowIdTool({
        name: 'cancel_mining',
        title: 'Cancel mining',
        description: CANCEL_MINING_DESCRIPTION,
        annotations: {
            title: 'Cancel mining',
            readOnlyHint: false,
            // It throws away the work done so far.
            destructiveHint: true,
            // Cancelling twice ends in the same state as cancelling once.
            idempotentHint: true,
            openWorldHint: false,
        },
        call: ({ workflow_id }, { signal }) =>
            guarded('cancel_mining', log, async () => {
                const outcome = await workflows.cancel(workflow_id, signal);
                switch (outcome.kind) {
                    case 'not_found':
                        return statusResult(notFound(workflow_id), config.maxResultChars);
                    case 'unavailable':
                        return toolError(BACKEND_UNAVAILABLE);
                    case 'unreadable':
                        return toolError(
                            `Cancellation was requested, but the workflow status could not be read. Call get_mining_result with workflow_id "${workflow_id}" to check it.`
                        );
                    case 'read': {
                        const status = toWorkflowStatus(workflow_id, outcome.durable, { pollAfterSeconds: config.pollAfterSeconds });
                        if (status.status === 'running') status.next = cancelNotVisibleNext(workflow_id, config.pollAfterSeconds);
                        return statusResult(status, config.maxResultChars);
                    }
                }
            }),
    });
}
