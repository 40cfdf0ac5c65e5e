/**
 * Held invocations, for tests that need a run in a known state: while a function is held, each invocation of it
 * that starts waits, in flight, before the function runs, until a test releases it (the oldest first) or the hold
 * stops. So "a block's ranges in flight", "the host killed mid-run" or "progress at 1 of 4" is a state a test waits
 * for and then acts on, whatever the machine's speed. The route is holdRoute.ts; both Durable backends run
 * activities through this host's invoker, so a hold works on each.
 */

interface Held {
    invocationId: string;
    functionName: string;
    go: (run: boolean) => void;
}

export class InvocationHolds {
    readonly #holding = new Set<string>();
    /** In the order they started, so a release takes the oldest. */
    readonly #held: Held[] = [];

    /** From now on, invocations of `functionName` that start wait for a release. */
    hold(functionName: string): void {
        this.#holding.add(functionName);
    }

    /** Stops holding `functionName` and releases every invocation of it that waits. */
    stop(functionName: string): string[] {
        this.#holding.delete(functionName);
        return this.release(functionName, Number.POSITIVE_INFINITY);
    }

    /** Lets the oldest `count` waiting invocations of `functionName` run; their ids. */
    release(functionName: string, count: number): string[] {
        const released: string[] = [];
        for (let i = 0; i < this.#held.length && released.length < count; ) {
            const held = this.#held[i] as Held;
            if (held.functionName !== functionName) {
                i++;
                continue;
            }
            this.#held.splice(i, 1);
            held.go(true);
            released.push(held.invocationId);
        }
        return released;
    }

    /** The functions held, and the invocations that wait, oldest first. */
    state(): { holding: string[]; held: Array<{ invocationId: string; functionName: string }> } {
        return {
            holding: [...this.#holding],
            held: this.#held.map(({ invocationId, functionName }) => ({ invocationId, functionName })),
        };
    }

    /**
     * Resolves true when the invocation may run: at once unless its function is held, else once released. Resolves
     * false if it is dropped first (the platform failed it while it waited): then it never runs.
     */
    wait(invocationId: string, functionName: string): Promise<boolean> {
        if (!this.#holding.has(functionName)) return Promise.resolve(true);
        return new Promise<boolean>((go) => this.#held.push({ invocationId, functionName, go }));
    }

    /** Drops a waiting invocation, which then never runs. */
    drop(invocationId: string): void {
        const at = this.#held.findIndex((held) => held.invocationId === invocationId);
        if (at >= 0) this.#held.splice(at, 1)[0]?.go(false);
    }
}
