/**
 * An answer of the Durable extension's HTTP management API other than the one an operation expects,
 * with its HTTP status. The message names the operation and the status only: never the URL (it can
 * carry the system key) or the body (it can carry stack traces).
 */
export class DurableHttpError extends Error {
    override name = 'DurableHttpError';

    constructor(
        readonly operation: string,
        readonly status: number
    ) {
        super(`${operation}: the Durable extension answered HTTP ${status}`);
    }
}

/** True for the management API's "no such instance" answer (404), whatever the operation. */
export function isNotFoundError(error: unknown): boolean {
    return error instanceof DurableHttpError && error.status === 404;
}
