import { z } from 'zod';
import { anyStatusSchema } from '../outputSchemas';
import type { ToolDefinition } from './toolDefinition';
import { WORKFLOW_ID_MAX_LENGTH } from '../../workflow/ids';

/**
 * Longest workflow_id accepted as an argument. Generous on purpose: an id that is merely malformed
 * (too long for an id, odd characters) is answered not_found, which tells the model what to do;
 * only absurd input is an argument error.
 */
export const WORKFLOW_ID_ARGUMENT_MAX = 1000;

/** Strict: an argument the tool does not know is an error, not silently dropped. */
export const workflowIdInput = z.strictObject({
    workflow_id: z
        .string({ error: 'workflow_id must be a string' })
        .max(WORKFLOW_ID_ARGUMENT_MAX, { error: `workflow_id must be at most ${WORKFLOW_ID_ARGUMENT_MAX} characters` })
        .describe(
            `The workflow_id that start_mining returned, exactly as given (at most ${WORKFLOW_ID_MAX_LENGTH} letters, digits and hyphens).`
        ),
});

/** A tool that takes one workflow_id and answers that workflow's status (get_mining_result, cancel_mining). */
export function workflowIdTool(
    tool: Omit<ToolDefinition<typeof workflowIdInput>, 'inputSchema' | 'outputSchema'>
): ToolDefinition<typeof workflowIdInput> {
    return { ...tool, inputSchema: workflowIdInput, outputSchema: anyStatusSchema };
}
