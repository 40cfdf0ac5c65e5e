import type { JobDefinition } from '../jobs/job';
import type { JobStatus } from './statusObjects';
import { truncateStatus } from './truncate';
import { workflowResourceLink, type ResourceLinkItem } from './workflowLink';

/**
 * Tool results as both protocol eras send them (plain objects: each era's SDK checks them against its
 * own schema).
 */

export interface TextItem {
    type: 'text';
    text: string;
}

export interface ToolResult {
    [key: string]: unknown;
    content: Array<TextItem | ResourceLinkItem>;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
}

/**
 * The status as structuredContent and, for clients that ignore that, as JSON text, cut to
 * `maxResultChars` (see truncate.ts); running and completed answers also link the workflow resource.
 * Every status, failed and not_found included, is data and not a tool error, hence isError: false.
 */
export function statusResult(job: JobDefinition, status: JobStatus, maxResultChars: number): ToolResult {
    const bounded = truncateStatus(job, status, maxResultChars);
    const text: TextItem = { type: 'text', text: JSON.stringify(bounded) };
    const linked = bounded.status === 'running' || bounded.status === 'completed';
    return {
        content: linked ? [text, workflowResourceLink(job, bounded.workflow_id)] : [text],
        structuredContent: { ...bounded },
        isError: false,
    };
}

/** A tool error (isError: true) with a message safe to show the user. */
export function toolError(message: string): ToolResult {
    return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Runs a tool body so that an unexpected throw becomes a tool error with a safe message (the SDK
 * would otherwise send the raw error text, which may hold backend URLs), and is logged in full.
 */
export async function guarded(toolName: string, log: { error(...args: unknown[]): void }, body: () => Promise<ToolResult>): Promise<ToolResult> {
    try {
        return await body();
    } catch (error) {
        log.error(`${toolName}: unexpected error`, error);
        return toolError(`${toolName} failed unexpectedly. Try again in a few seconds.`);
    }
}
