import { readFileSync } from 'node:fs';
import { sleep } from './common';

/** CPU seconds (user + system) a process has used so far (Linux /proc), or NaN elsewhere. */
export function cpuSeconds(pid: number | undefined): number {
    try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
        return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
        return Number.NaN;
    }
}

/** Waits until the process uses less than `cores` CPUs over a 300 ms window, for at most `maxMs`. */
export async function waitUntilQuiet(pid: number | undefined, cores = 0.3, maxMs = 8000): Promise<void> {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
        const before = cpuSeconds(pid);
        await sleep(300);
        const used = (cpuSeconds(pid) - before) / 0.3;
        if (!(used >= cores)) return;
    }
}

/** Waits until the process uses at least `cores` CPUs over a 300 ms window, for at most `maxMs`. */
export async function waitUntilBusy(pid: number | undefined, cores: number, maxMs = 8000): Promise<void> {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
        const before = cpuSeconds(pid);
        await sleep(300);
        if ((cpuSeconds(pid) - before) / 0.3 >= cores) return;
    }
}
