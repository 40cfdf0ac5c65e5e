import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread only (Linux), so that mining threads give way
 * to the host's main thread, which answers tool calls, when every core is busy. Linux applies a
 * nice value to a single thread when given its thread id, which /proc/thread-self names; Node has no
 * API for it. A thread already at that nice value or a lower priority (a host started under `nice`) keeps its own:
 * setting the value would raise it, which is not this function's to do (and is refused to a user that is not root).
 * Best effort: elsewhere, or if refused, the thread keeps its priority and still works. Returns whether the thread
 * now runs at `nice` or a lower priority.
 */
export function lowerThreadPriority(nice: number): boolean {
    if (process.platform !== 'linux') return false;
    try {
        const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
        if (!Number.isInteger(tid) || tid <= 0) return false;
        if (getPriority(tid) < nice) setPriority(tid, nice);
        return true;
    } catch {
        return false;
    }
}
