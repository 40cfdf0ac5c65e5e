/**
 * A bound on every call into the Durable backend: a hung backend must not hang a tool call.
 */

/** How long one backend call (a status read, a start, a terminate) may take before the app gives up on it. */
export const BACKEND_CALL_TIMEOUT_MS = 10_000;

export class BackendTimeoutError extends Error {
    override name = 'BackendTimeoutError';
}

/** Rejects with BackendTimeoutError if `promise` has not settled within `ms`. */
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
