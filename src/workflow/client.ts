import type { DurableStatusLike } from './status';

/**
 * The part of the durable client that the tools use (ManagementApiClient in managementClient.ts: the
 * management API durable-functions' DurableClient calls, with errors that carry the HTTP status). Naming
 * it keeps the tools testable with a small fake, and makes any new call into the backend a visible change.
 * Failures with an HTTP answer are DurableHttpErrors (durableHttpError.ts).
 */
export interface WorkflowClient {
    startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string>;
    getStatus(instanceId: string, options?: { showInput?: boolean }): Promise<DurableStatusLike>;
    /** Ends a running instance (the reason as plain text: the client encodes it); an ended one is left as it is. */
    terminate(instanceId: string, reason: string): Promise<void>;
    /**
     * Every instance created in the time window, all pages (the client follows continuation tokens),
     * inputs included. Callers filter by id.
     */
    getStatusBy(filter: { createdTimeFrom?: Date; createdTimeTo?: Date }): Promise<DurableStatusLike[]>;
    /**
     * One page of the instances whose id starts with `query.instanceIdPrefix` (the management API's
     * `instances/?instanceIdPrefix=…&top=…` query, its `x-ms-continuation-token` header for the next page).
     * A page may hold fewer than `top` instances, even none, and still have a next page.
     */
    listInstances(query: InstanceQuery, signal?: AbortSignal): Promise<InstancePage>;
    /**
     * Deletes an ended instance's history; an unknown one is left as it is, and the real extension refuses
     * one that has not ended (HTTP 412, measured by test/devhost/backendConformance.test.ts).
     */
    purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }>;
}

export interface InstanceQuery {
    instanceIdPrefix: string;
    /** At most this many per page. */
    top: number;
    /** Only instances in these runtime statuses (e.g. Running, Pending); all when absent. */
    runtimeStatus?: readonly string[];
    createdTimeFrom?: Date;
    showInput?: boolean;
    /** The token of the page before, as the backend gave it. */
    continuationToken?: string;
}

export interface InstancePage {
    instances: DurableStatusLike[];
    /** Absent on the last page. */
    continuationToken?: string;
}

export { isNotFoundError } from './durableHttpError';

export class BackendTimeoutError extends Error {
    override name = 'BackendTimeoutError';
}

/** Rejects with BackendTimeoutError if `promise` has not settled within `ms`: a hung backend must not hang the tool call. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BackendTimeoutError(`${what} did not answer within ${ms} ms`)), ms);
    });
    // If the timeout wins, the abandoned call may still fail later: that must not be an unhandled rejection.
    promise.catch(() => undefined);
    try {
        return await Promise.race([promise, timeout]);
    } finally {
        clearTimeout(timer);
    }
}
