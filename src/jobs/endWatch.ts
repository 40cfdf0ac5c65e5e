import { isNotFoundError } from '../workflow/durableHttpError';
import { isTerminal } from '../workflow/durableStatus';

/**
 * Durable Functions cannot cancel a running activity: terminating an orchestration (cancel_mining)
 * schedules no further MineBlock range, but leaves the running one burning every CPU until its
 * range is done, up to a minute on a slow instance and longer on a shared one. So the activity
 * watches its own orchestration and gives up once that has ended.
 */

export interface EndWatch {
    /** Aborts once the orchestration is seen in a terminal state. */
    readonly signal: AbortSignal;
    stop(): void;
}

/**
 * Reads the orchestration's runtime status every `intervalMs` until stopped. Aborts when it is terminal,
 * or when `read` rejects with the backend's 404 (the instance was purged). Any other failure, or an
 * undefined answer, and the watch simply keeps going, because stopping real work on a guess would be
 * worse than a little wasted CPU.
 */
export function watchForEnd(read: () => Promise<string | undefined>, intervalMs: number): EndWatch {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const tick = async () => {
        try {
            const runtimeStatus = await read();
            if (runtimeStatus !== undefined && isTerminal(runtimeStatus)) controller.abort();
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
