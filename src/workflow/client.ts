import type { DurableStatusLike } from './status';

/**
 * The part of the durable client (durable-functions' DurableClient) that the tools use. Naming it
 * keeps the tools testable with a small fake, and makes any new call into the backend a visible change.
 */
export interface WorkflowClient {
    startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string>;
    getStatus(instanceId: string, options?: { showInput?: boolean }): Promise<DurableStatusLike>;
    terminate(instanceId: string, reason: string): Promise<void>;
    /**
     * Every instance created in the time window, all pages (the client follows continuation tokens),
     * inputs included. There is no id-prefix filter in the JavaScript client: callers filter.
     */
    getStatusBy(filter: { createdTimeFrom?: Date; createdTimeTo?: Date }): Promise<DurableStatusLike[]>;
    /** Deletes an ended instance's history; an unknown or still running one is left as it is. */
    purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }>;
}

/**
 * True for the durable client's "no such instance" errors: getStatus throws "…replied with HTTP 404
 * response…", terminate throws "No instance with ID '…' found.", anything else "…unexpected status code: 404…".
 */
export function isNotFoundError(error: unknown): boolean {
    const message = error instanceof Error ? error.message : String(error);
    return /\bHTTP 404\b|\bstatus code: 404\b|\bNo instance with ID\b/.test(message);
}

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
