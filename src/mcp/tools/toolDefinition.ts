import type { z } from 'zod';
import type { ToolDeps } from '../deps';
import type { ToolResult } from '../toolResults';
import type { JobProgress } from '../../jobs/job';

/**
 * A tool as both protocol eras serve it: its contract (name, schemas, annotations, description) beside its
 * handler. Built once per configuration (../catalog.ts); each call brings the caller's own dependencies, so
 * one definition serves every request of every era.
 */

export interface ToolAnnotations {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
}

/** What a call brings besides its arguments. */
export interface ToolCall {
    /** Aborted when the request is (when the transport can tell). */
    signal?: AbortSignal;
    /** Sends a progress notification, when the client asked for them. */
    reportProgress?: (progress: JobProgress) => void;
    /** The client declared MCP Apps: the answer carries the run facts its view reads (../workflowView.ts). */
    forView?: boolean;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
    name: string;
    title: string;
    description: string;
    inputSchema: Input;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
    call(args: z.output<Input>, deps: ToolDeps, call: ToolCall): Promise<ToolResult>;
}
