import { isNotFoundError } from '../workflow/durableHttpError';
import { isTerminal } from '../workflow/durableStatus';

/**
 * Durable Functions cannot cancel a running activity: terminating an orchestration (cancel_mining)
 * schedules no further MineBlock range, but leaves the running one burning every CPU until its
 * range is done, up to a minute on a slow instance and longer on a shared one. So the activity
 * watches its own orchestration and gives up once that has ended, or once the orchestration's custom
 * status says the activity's work is no longer wanted (ranges in flight above an accepted hit).
 */

/** What the watch reads of the orchestration: its runtime status, and its custom status when the caller wants it. */
export interface WatchedStatus {
    runtimeStatus?: string;
    customStatus?: unknown;
}

export interface EndWatch {
    /** Aborts once the orchestration is seen in a terminal state. */
    readonly signal: AbortSignal;
    stop(): void;
}

/**
 * Reads the orchestration's runtime status every `intervalMs` until stopped. Aborts when it is terminal,
 * when `superseded` says yes to its custom status (the work was overtaken), or when `read` rejects with the
 * backend's 404 (the instance was purged). `read` may answer the runtime status alone. Any other failure, or an
 * undefined answer, and the watch simply keeps going, because stopping real work on a guess would be
 * worse than a little wasted CPU.
 */
export function watchForEnd(
    read: () => Promise<string | WatchedStatus | undefined>,
    intervalMs: number,
    superseded?: (customStatus: unknown) => boolean
): EndWatch {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const tick = async () => {
        try {
            const answer = await read();
            const status: WatchedStatus = typeof answer === 'string' ? { runtimeStatus: answer } : (answer ?? {});
            if (status.runtimeStatus !== undefined && isTerminal(status.runtimeStatus)) controller.abort();
            else if (superseded !== undefined && status.customStatus !== undefined && superseded(status.customStatus)) controller.abort();
        } catch (error) {
            // The instance is gone (purged: the management API's 404): nobody will ever want the block.
            if (isNotFoundError(error)) controller.abort();
            // Anything else: keep watching, see above.
        }
        schedule();
    };
    const schedule = () => {
        if (stopped || controller.signal.aborted) return;
        timer = setTimeout(() => void tick(), intervalMs);
        // The watch must never be what keeps a process alive.
        timer.unref();
    };
    schedule();
    return {
        signal: controller.signal,
        stop() {
            stopped = true;
            clearTimeout(timer);
        },
    };
}
