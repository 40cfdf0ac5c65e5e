import { BACKEND_UNAVAILABLE } from '../refusalText';
import { notFound, toWorkflowStatus } from '../statusObjects';
import { guarded, statusResult, toolError } from '../toolResults';
import type { ToolDefinition } from './toolDefinition';
import { runFacts, withRunFacts } from '../workflowView';
import { workflowIdTool, type WorkflowIdInput } from './workflowIdInput';
import type { JobDefinition } from '../../jobs/job';
import { WorkflowUnavailableError } from '../../workflow/workflowService';

/** A job's get tool: the status of one of its workflows. */
export function getResultTool(job: JobDefinition): ToolDefinition<WorkflowIdInput> {
    const { name, title, description } = job.tools.get;
    return workflowIdTool(job, {
        name,
        title,
        description,
        annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        call: ({ workflow_id }, { config, log, workflows, wallNow }, { forView }) =>
            guarded(name, log, async () => {
                let durable;
                try {
                    // Another tenant's workflow, an expired one, or another job's, is not_found like an unknown one.
                    durable = await workflows.read(workflow_id, job.orchestrator);
                } catch (error) {
                    if (error instanceof WorkflowUnavailableError) return toolError(BACKEND_UNAVAILABLE);
                    throw error;
                }
                const nowMs = (wallNow ?? Date.now)();
                const status =
                    durable === undefined ? notFound(job, workflow_id) : toWorkflowStatus(job, workflow_id, durable, { pollAfterSeconds: config.pollAfterSeconds, nowMs });
                const result = statusResult(job, status, config.maxResultChars);
                return forView === true && durable !== undefined ? withRunFacts(result, runFacts(job, durable, nowMs)) : result;
            }),
    });
}
