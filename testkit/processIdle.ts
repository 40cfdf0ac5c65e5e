import { readFileSync } from 'node:fs';

/**
 * Waits until a process has (nearly) stopped using the CPU: for a host whose cancelled workflow's activity
 * is still mining (terminate does not stop a running activity; MineBlock notices the end within seconds),
 * so that a test leaves no work behind to slow the tests after it, whatever their order. Linux only (it reads
 * /proc); elsewhere it resolves at once.
 */

/** CPU time (user + system, every thread) the process has used, in USER_HZ ticks (100 a second on Linux). */
function cpuTicks(pid: number): number {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
}

const TICKS_PER_SECOND = 100;

export async function untilProcessIdle(pid: number | undefined, what: string, timeoutMs = 60_000, busyShare = 0.3): Promise<void> {
    if (process.platform !== 'linux' || pid === undefined) return;
    const windowMs = 500;
    const deadline = Date.now() + timeoutMs;
    let before = cpuTicks(pid);
    for (;;) {
        await new Promise((resolve) => setTimeout(resolve, windowMs));
        const now = cpuTicks(pid);
        const share = (now - before) / TICKS_PER_SECOND / (windowMs / 1000);
        if (share < busyShare) return;
        if (Date.now() > deadline) throw new Error(`${what}: still using ${Math.round(share * 100)}% of a core after ${timeoutMs} ms`);
        before = now;
    }
}
