import type { DurableStatusLike } from './durableStatus';

/**
 * The part of the durable client that the workflow service uses (ManagementApiClient in
 * managementClient.ts: the management API durable-functions' DurableClient calls, with errors that carry
 * the HTTP status). Naming it keeps the service testable with a small fake, and makes any new call into
 * the backend a visible change. Failures with an HTTP answer are DurableHttpErrors (durableHttpError.ts).
 */
export interface WorkflowClient {
    startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string>;
    getStatus(instanceId: string, options?: { showInput?: boolean }): Promise<DurableStatusLike>;
    /** Ends a running instance (the reason as plain text: the client encodes it); an ended one is left as it is. */
    terminate(instanceId: string, reason: string): Promise<void>;
    /**
     * One page of the instances whose id starts with `query.instanceIdPrefix` (the management API's
     * `instances/?instanceIdPrefix=…&top=…` query, its `x-ms-continuation-token` header for the next page).
     * A page may hold fewer than `top` instances, even none, and still have a next page.
     */
    listInstances(query: InstanceQuery, signal?: AbortSignal): Promise<InstancePage>;
    /**
     * Deletes an ended instance's history; an unknown one is left as it is, and the real extension refuses
     * one that has not ended (HTTP 412, measured by devhost/test/backendConformance.test.ts).
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
