import { z } from 'zod';
import { timeMs, type DurableStatusLike } from './durableStatus';

/**
 * MCP task lifetimes. A task-augmented start stores the requested ttl in the orchestration's
 * input (task_ttl_ms); the instance's creation time comes from the backend. Nothing else is needed, so
 * any instance of the app can tell whether a workflow has outlived its ttl. Reads only tell: an expired
 * workflow reads as unknown. Ending one that still runs is a write, done where the app writes anyway
 * (workCaps.ts, when a start counts the tenant's running workflows).
 */

const ttlInputSchema = z.object({ task_ttl_ms: z.number().int().positive() });

/** The ttl a task asked for, in ms; null when none was (plain calls, or a task without ttl). */
export function taskTtlMs(durable: DurableStatusLike): number | null {
    const parsed = ttlInputSchema.safeParse(durable.input);
    return parsed.success ? parsed.data.task_ttl_ms : null;
}

/** True when the workflow has a ttl and its creation time plus the ttl has passed. */
export function isExpired(durable: DurableStatusLike, nowMs: number): boolean {
    const ttl = taskTtlMs(durable);
    const created = timeMs(durable.createdTime);
    return ttl !== null && created !== undefined && nowMs >= created + ttl;
}

/** The reason given when a task's ttl ends a workflow that still runs. */
export const TTL_EXPIRED_REASON = 'task ttl expired';
