/**
 * Resolves once `condition` holds, checking every `everyMs`; rejects with `what` if it still does not after
 * `timeoutMs`. For tests that wait on a state rather than sleeping a fixed time: give a deadline sized for a
 * loaded two-core machine, since only a broken run ever reaches it.
 */
export async function until(
    condition: () => boolean | Promise<boolean>,
    what: string,
    timeoutMs = 30_000,
    everyMs = 10
): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        if (await condition()) return;
        if (Date.now() > deadline) throw new Error(`Still not true after ${timeoutMs} ms: ${what}`);
        await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
}

/**
 * `waiting`, or a rejection naming `what` after `timeoutMs`: for a test that waits for an event (an abort, say), so
 * that a regression fails in seconds rather than at the per-test timeout. The timer keeps the process alive meanwhile.
 */
export async function within<T>(waiting: Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Not within ${timeoutMs} ms: ${what}`)), timeoutMs);
    });
    try {
        return await Promise.race([waiting, late]);
    } finally {
        clearTimeout(timer);
    }
}
