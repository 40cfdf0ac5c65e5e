import { BACKEND_UNAVAILABLE } from '../refusalText';
import { notFound, toWorkflowStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { runFacts, withRunFacts } from '../workflowView';
import { workflowIdTool, type WorkflowIdInput } from './workflowIdInput';
import type { JobDefinition } from '../../jobs/job';

/** The `next` of a workflow still running when the cancel tool's wait ends: honest that the end is not visible yet. */
function cancelNotVisibleNext(job: JobDefinition, workflowId: string, pollAfterSeconds: number): string {
    return (
        `Cancellation was requested but has not taken effect yet. Call ${job.tools.get.name} with workflow_id "${workflowId}" ` +
        `in about ${pollAfterSeconds} seconds; expect status "failed" with reason "cancelled".`
    );
}

/** A job's cancel tool: ends one of its workflows and answers the status it then has. */
export function cancelTool(job: JobDefinition): ToolDefinition<WorkflowIdInput> {
    const { name, title, description } = job.tools.cancel;
    return workflowIdTool(job, {
        name,
        title,
        description,
        annotations: {
            title,
            readOnlyHint: false,
            // It throws away the work done so far.
            destructiveHint: true,
            // Cancelling twice ends in the same state as cancelling once.
            idempotentHint: true,
            openWorldHint: false,
        },
        call: ({ workflow_id }, { config, log, workflows, wallNow }, { signal, forView }) =>
            guarded(name, log, async () => {
                // Another job's workflow is not_found, and left running.
                const outcome = await workflows.cancel(workflow_id, name, { signal, orchestrator: job.orchestrator });
                switch (outcome.kind) {
                    case 'not_found':
                        return statusResult(job, notFound(job, workflow_id), config.maxResultChars);
                    case 'unavailable':
                        return toolError(BACKEND_UNAVAILABLE);
                    case 'unreadable':
                        return toolError(
                            `Cancellation was requested, but the workflow status could not be read. Call ${job.tools.get.name} with workflow_id "${workflow_id}" to check it.`
                        );
                    case 'read': {
                        const status = toWorkflowStatus(job, workflow_id, outcome.durable, { pollAfterSeconds: config.pollAfterSeconds });
                        if (status.status === 'running') status.next = cancelNotVisibleNext(job, workflow_id, config.pollAfterSeconds);
                        const result = statusResult(job, status, config.maxResultChars);
                        return forView === true ? withRunFacts(result, runFacts(job, outcome.durable, (wallNow ?? Date.now)())) : result;
                    }
                }
            }),
    });
}
