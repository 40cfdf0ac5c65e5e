/**
 * Callers waiting for an instance to reach a final status: a poll-free wait, as the extension offers for
 * providers that can tell. The episode that ends an instance wakes them.
 */
export class FinishWaiters {
    #waiters = new Map<string, Set<() => void>>();

    /** Resolves when `wake(instanceId)` is called or after `timeoutMs`; never rejects. */
    wait(instanceId: string, timeoutMs: number): Promise<void> {
        return new Promise<void>((resolve) => {
            const waiters = this.#waiters.get(instanceId) ?? new Set();
            const done = () => {
                clearTimeout(timer);
                waiters.delete(done);
                if (waiters.size === 0) this.#waiters.delete(instanceId);
                resolve();
            };
            const timer = setTimeout(done, timeoutMs);
            waiters.add(done);
            this.#waiters.set(instanceId, waiters);
        });
    }

    wake(instanceId: string): void {
        for (const wake of [...(this.#waiters.get(instanceId) ?? [])]) wake();
    }
}
