import type { Config } from '../config';
import type { Clock } from './budgetedWait';
import type { Tenant } from './tenant';
import type { WorkflowClient } from './workflowClient';

/** Where the app writes what the client is not told (backend errors); InvocationContext fits. */
export interface Log {
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
}

/** What the workflow service needs, handed in per request so tests can pass fakes. */
export interface WorkflowDeps {
    client: WorkflowClient;
    config: Config;
    log: Log;
    /** The caller: the service sees and starts only this tenant's workflows. */
    tenant: Tenant;
    /** For tests; the system clock otherwise. */
    clock?: Clock;
    /** Wall time in ms since the epoch, for task ttls (the Clock is monotonic); Date.now otherwise. */
    wallNow?: () => number;
}
