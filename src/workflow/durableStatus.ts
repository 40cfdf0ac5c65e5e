/**
 * What the app reads of a Durable orchestration instance, and the few facts it derives from one that do
 * not depend on who asks (whether it has ended, whether a client cancelled it). What a
 * client is told about it is the MCP layer's business (src/mcp/statusObjects.ts).
 */

/** The fields of the durable client's DurableOrchestrationStatus that the app reads. */
export interface DurableStatusLike {
    /** Set by list queries; a single read knows the id it asked for. */
    instanceId?: string;
    /** The orchestrator's name: which job the workflow is. */
    name?: string;
    runtimeStatus: string;
    /** A Date from a single read, an ISO string from list queries (passed through raw). */
    createdTime?: Date | string;
    lastUpdatedTime?: Date | string;
    input?: unknown;
    output?: unknown;
    customStatus?: unknown;
}

const TERMINAL = new Set(['Completed', 'Failed', 'Terminated', 'Canceled']);

/** True for a runtime status that will never change again. */
export function isTerminal(runtimeStatus: string): boolean {
    return TERMINAL.has(runtimeStatus);
}

/**
 * The terminate reason of a cancellation by a client (a job's cancel tool, tasks/cancel); a Terminated
 * instance whose output (its reason) carries the marker was cancelled, any other one was terminated some
 * other way. The reason names the job's cancel tool before the marker (tasks/cancel ends a workflow the same way).
 */
export const CANCEL_REASON = 'cancelled by the client';

export function cancelReason(by: string): string {
    return `${by}: ${CANCEL_REASON}`;
}

/** A Terminated instance's output is its terminate reason. */
export function isCancelReason(output: unknown): boolean {
    return typeof output === 'string' && output.includes(CANCEL_REASON);
}

/**
 * Whether the instance runs `orchestrator` (function names are case-insensitive to the Functions host). A
 * status without a name (a backend that does not report it) is taken to run any.
 */
export function runsOrchestrator(durable: Pick<DurableStatusLike, 'name'>, orchestrator: string): boolean {
    return durable.name === undefined || durable.name.toLowerCase() === orchestrator.toLowerCase();
}

/** A durable timestamp (a Date from a single read, an ISO string from list queries) in ms, if readable. */
export function timeMs(value: Date | string | undefined): number | undefined {
    if (value === undefined) return undefined;
    const ms = value instanceof Date ? value.getTime() : Date.parse(value);
    return Number.isFinite(ms) ? ms : undefined;
}
