/**
 * What the server tells a job's view (MCP Apps) beyond the status object, and where: a tool answer to a client that
 * declared the extension carries the run's facts in its `_meta`, which MCP Apps hands the view and keeps out of the
 * model's context ("_meta: additional metadata not intended for model context", SEP-1865, Data Passing). They are
 * the workflow's own (the Durable backend's times and the published progress), so a view opened again later, from
 * the tool result alone, shows the same run. Shared by the server (src/mcp/workflowView.ts) and the view.
 */

/** The `_meta` key of a tool answer's run facts. */
export const RUN_FACTS_KEY = 'workflow';

export interface RunFacts {
    /** When the workflow was created (ISO 8601), as the Durable backend records it. */
    created_at?: string;
    /** When it last changed: its end, once it has ended. */
    updated_at?: string;
    /** The server's clock when it answered, so the view measures elapsed time on the workflow's clock, not its own. */
    as_of: string;
    /** Work done and in all, in the job's unit (blocks, segments), from the progress it published. */
    done?: number;
    total?: number;
    /** The job's line about that progress ("Mined block 2 of 4"). */
    message?: string;
}

/** A job's view, `ui://{job}/workflow` (one per job, named by its start tool only: one view per run in the chat). */
export function viewUri(jobName: string): string {
    return `ui://${jobName}/workflow`;
}

/**
 * The job's app-only status tool, `{job}_view_status`: what its view polls (MCP Apps visibility `["app"]`), so that the
 * model's own polls, through the job's get tool, add no view to the chat (src/mcp/tools/viewStatusTool.ts).
 */
export function viewStatusToolName(jobName: string): string {
    return `${jobName}_view_status`;
}

/**
 * What a job's view knows of its job, taken from the job's definition at build time (./viewSpec.ts; the build writes it
 * into the view's HTML): its names, its tools, and its result schema, from which a job without its own renderer gets
 * its result laid out (./genericResult.ts). Nothing of a run, nothing of a tenant: the view learns the run from the
 * caller's own tool calls.
 */
export interface ViewSpec {
    job: string;
    /** "Mining workflow". */
    title: string;
    /** `status` is the app-only tool it polls; `get` is the model's, named in what it says. */
    tools: { start: string; get: string; status: string; cancel: string };
    /** The result's JSON Schema (as the result is answered). */
    resultSchema: unknown;
}
