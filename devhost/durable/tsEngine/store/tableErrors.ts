/** What Azure Tables' error answers mean to the task hub store: its status code, and the store's own errors. */
import { RestError } from '@azure/data-tables';
import { ConcurrencyError, InstanceMissingError, StorageRejectedError } from './taskHubStore';

export function statusOf(err: unknown): number | undefined {
    return err instanceof RestError ? err.statusCode : undefined;
}

/** The first line of an error's message (the SDK appends the whole response). */
export function describe(err: unknown): string {
    return err instanceof Error ? err.message.split('\n')[0] ?? err.message : String(err);
}

/** A failed transaction on one instance, as the engine must hear of it. */
export function transactionError(err: unknown): unknown {
    const status = statusOf(err);
    if (status === 412 || status === 409) return new ConcurrencyError(`The instance changed concurrently: ${describe(err)}`);
    // The row to update, or the table, is gone: storage lost it (this host retires an instance before purging it).
    if (status === 404) return new InstanceMissingError(`The instance is missing from storage: ${describe(err)}`);
    // The service refused the data itself; sending it again cannot help.
    if (status === 400 || status === 413) return new StorageRejectedError(describe(err));
    return err;
}
