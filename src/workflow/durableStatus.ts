import { z } from 'zod';

/**
 * What the app reads of a Durable orchestration instance, and the few facts it derives from one that do
 * not depend on who asks (whether it has ended, whether a client cancelled it, what it costs). What a
 * client is told about it is the MCP layer's business (src/mcp/statusObjects.ts).
 */

/** The fields of the durable client's DurableOrchestrationStatus that the app reads. */
export interface DurableStatusLike {
    /** Set by list queries; a single read knows the id it asked for. */
    instanceId?: string;
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
 * The terminate reason of a cancellation by a client (cancel_mining, tasks/cancel); a Terminated instance
 * whose output (its reason) carries the marker was cancelled, any other one was terminated some other way.
 */
export const CANCEL_MARKER = 'cancel_mining';
export const CANCEL_REASON = `${CANCEL_MARKER}: cancelled by the client`;

/** A Terminated instance's output is its terminate reason. */
export function isCancelReason(output: unknown): boolean {
    return typeof output === 'string' && output.includes(CANCEL_MARKER);
}

/** The expected attempts of a run: each block needs 2^difficulty hashes on average. */
export function expectedAttempts(blocks: number, difficulty: number): number {
    return blocks * 2 ** difficulty;
}

const inputWorkSchema = z.object({ blocks: z.number().int().min(1), difficulty: z.number().int().min(0) });

/** blocks × 2^difficulty from the workflow's stored input, when it shows one. */
export function expectedAttemptsOf(durable: DurableStatusLike): number | undefined {
    const input = inputWorkSchema.safeParse(durable.input);
    return input.success ? expectedAttempts(input.data.blocks, input.data.difficulty) : undefined;
}

/** A durable timestamp (a Date from a single read, an ISO string from list queries) in ms, if readable. */
export function timeMs(value: Date | string | undefined): number | undefined {
    if (value === undefined) return undefined;
    const ms = value instanceof Date ? value.getTime() : Date.parse(value);
    return Number.isFinite(ms) ? ms : undefined;
}
