import { z } from 'zod';
import { anyStatusSchema } from '../outputSchemas';
import type { ToolDefinition } from './toolDefinition';
import { toolArguments, type JobDefinition } from '../../jobs/job';
import { WORKFLOW_ID_MAX_LENGTH } from '../../workflow/ids';

/**
 * Longest workflow_id accepted as an argument. Generous on purpose: an id that is merely malformed
 * (too long for an id, odd characters) is answered not_found, which tells the model what to do;
 * only absurd input is an argument error.
 */
const WORKFLOW_ID_ARGUMENT_MAX = 1000;

/** The input of a job's tools that take one workflow_id. */
export function workflowIdInput(job: JobDefinition) {
    return toolArguments({
        workflow_id: z
            .string({ error: (issue) => (issue.input === undefined ? 'workflow_id is required' : 'workflow_id must be a string') })
            .max(WORKFLOW_ID_ARGUMENT_MAX, { error: `workflow_id must be at most ${WORKFLOW_ID_ARGUMENT_MAX} characters` })
            .describe(
                `The workflow_id that ${job.tools.start.name} returned, exactly as given (at most ${WORKFLOW_ID_MAX_LENGTH} letters, digits and hyphens).`
            ),
    });
}

export type WorkflowIdInput = ReturnType<typeof workflowIdInput>;

/** A tool that takes one workflow_id and answers that workflow's status (a job's get and cancel tools). */
export function workflowIdTool(
    job: JobDefinition,
    tool: Omit<ToolDefinition<WorkflowIdInput>, 'inputSchema' | 'outputSchema'>
): ToolDefinition<WorkflowIdInput> {
    return { ...tool, inputSchema: workflowIdInput(job), outputSchema: anyStatusSchema(job) };
}
