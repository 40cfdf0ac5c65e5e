/**
 * The retry policy of every job's activity calls, applied by the range window (src/jobs/rangeWindow.ts). On the
 * Node.js path the Durable extension reports a worker exit, an out-of-memory or a function timeout as an ordinary
 * activity failure, with no platform retry (https://github.com/Azure/azure-functions-durable-js/issues/543), so
 * the orchestrator retries. Safe because an activity's answer is a function of its input alone; bounded, so a
 * deterministic error still fails the workflow: ACTIVITY_MAX_ATTEMPTS attempts, 2 s then 4 s apart.
 */
export const ACTIVITY_MAX_ATTEMPTS = 3;
const ACTIVITY_FIRST_RETRY_MS = 2000;

/** The wait after failed attempt `attempt` (1: 2 s, 2: 4 s), doubling, at most 30 s. */
export function retryDelayMs(attempt: number): number {
    return Math.min(ACTIVITY_FIRST_RETRY_MS * 2 ** (attempt - 1), 30_000);
}
