import { z } from 'zod';
import { isTerminal, type DurableStatusLike } from './status';

/**
 * MCP task lifetimes. A task-augmented start_mining stores the requested ttl in the orchestration's
 * input (task_ttl_ms); the instance's creation time comes from the backend. Nothing else is needed, so
 * any instance of the app can tell whether a workflow has outlived its ttl.
 */

const ttlInputSchema = z.object({ task_ttl_ms: z.number().int().positive() });

/** The ttl a task asked for, in ms; null when none was (plain start_mining calls, or a task without ttl). */
export function taskTtlMs(durable: DurableStatusLike): number | null {
    const parsed = ttlInputSchema.safeParse(durable.input);
    return parsed.success ? parsed.data.task_ttl_ms : null;
}

/** A durable timestamp (a Date from getStatus, an ISO string from list queries) in ms, if readable. */
export function timeMs(value: Date | string | undefined): number | undefined {
    if (value === undefined) return undefined;
    const ms = value instanceof Date ? value.getTime() : Date.parse(value);
    return Number.isFinite(ms) ? ms : undefined;
}

/** True when the workflow has a ttl and its creation time plus the ttl has passed. */
export function isExpired(durable: DurableStatusLike, nowMs: number): boolean {
    const ttl = taskTtlMs(durable);
    const created = timeMs(durable.createdTime);
    return ttl !== null && created !== undefined && nowMs >= created + ttl;
}

/** The reason given when a task's ttl ends a workflow that still runs. */
export const TTL_EXPIRED_REASON = 'task ttl expired';

/**
 * What retiring an expired workflow does next: terminate it while it has not ended (never purge a running
 * instance), purge it once it has.
 */
export function expiryStep(durable: DurableStatusLike): 'terminate' | 'purge' {
    return isTerminal(durable.runtimeStatus) ? 'purge' : 'terminate';
}
