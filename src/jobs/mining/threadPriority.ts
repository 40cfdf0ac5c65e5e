import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread only (Linux), so that mining threads give way
 * to the host's main thread, which answers tool calls, when every core is busy. Linux applies a
 * nice value to a single thread when given its thread id, which /proc/thread-self names; Node has no
 * API for it. Best effort: elsewhere, or if refused, the thread keeps its priority and still works.
 * Returns whether the priority was lowered.
 */
export function lowerThreadPriority(nice: number): boolean {
    if (process.platform !== 'linux') return false;
    try {
        const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
        if (!Number.isInteger(tid) || tid <= 0) return false;
        setPriority(tid, nice);
        return true;
    } catch {
        return false;
    }
}
