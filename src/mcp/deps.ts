import type { Config } from '../config';
import type { WorkflowClient } from '../workflow/client';
import type { Clock } from '../workflow/budgetedWait';
import type { Tenant } from '../workflow/tenant';

/** Where the tools write what the client is not told (backend errors); InvocationContext fits. */
export interface Log {
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
}

/** What the tools need, handed in per request so tests can pass fakes. */
export interface ToolDeps {
    client: WorkflowClient;
    config: Config;
    log: Log;
    /** The caller: the tools see and start only this tenant's workflows. */
    tenant: Tenant;
    /** For tests; the system clock otherwise. */
    clock?: Clock;
    /** Wall time in ms since the epoch, for task ttls (the Clock is monotonic); Date.now otherwise. */
    wallNow?: () => number;
}

/** How long one backend call (a status read, a terminate) may take before the tool gives up on it. */
export const BACKEND_CALL_TIMEOUT_MS = 10_000;

/**
 * How long cancel_mining and tasks/cancel wait for the end of the workflow to be visible. The real Durable
 * extension applies a terminate only when it next polls the instance's control queue (at most every
 * maxQueuePollingInterval, 2 s in host.json, once the queue has been idle) and then runs an episode that
 * writes the end; on an instance whose CPUs are busy mining that takes a few seconds more. Past this the
 * answer says that the cancellation was requested and is not visible yet.
 */
export const CANCEL_WAIT_MS = 12_000;
