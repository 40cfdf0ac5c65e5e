import type { Clock } from '../../src/workflow/budgetedWait';

/**
 * A clock that counts its sleeps in progress. A budgeted wait always has one while it runs (a pause, or the
 * deadline of the read in flight), so once a wait has begun, none left means that it has ended.
 */
export class WatchedClock implements Clock {
    pending = 0;

    constructor(private readonly inner: Clock) {}

    now(): number {
        return this.inner.now();
    }

    sleep(ms: number, signal?: AbortSignal): Promise<void> {
        this.pending++;
        return this.inner.sleep(ms, signal).finally(() => {
            this.pending--;
        });
    }
}
