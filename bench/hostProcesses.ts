import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * What a benchmark reads about a running host from outside: the CPUs its processes may run on (Linux
 * /proc), and the MineBlock executions its log shows.
 */

/** The CPU affinity (`Cpus_allowed_list`) of a process and all its descendants, e.g. ['0', '0']; [] off Linux. */
export function affinityOfTree(pid: number | undefined): string[] {
    if (pid === undefined) return [];
    const lists: string[] = [];
    const visit = (id: number) => {
        try {
            const status = readFileSync(`/proc/${id}/status`, 'utf8');
            lists.push(/^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1] ?? '?');
            const children = readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim();
            for (const child of children === '' ? [] : children.split(/\s+/)) visit(Number(child));
        } catch {
            // The process ended meanwhile, or this is not Linux.
        }
    };
    visit(pid);
    return lists;
}

/**
 * Sets every thread of a process tree to `nice` (Linux: a thread id is a pid to setpriority); returns how many
 * threads it changed. The bench uses it to put a host's mining threads (nice 10 by design) on a par with the
 * other work of a shared machine, which they would otherwise yield to entirely.
 */
export function reniceTree(pid: number | undefined, nice: number): number {
    if (pid === undefined) return 0;
    let changed = 0;
    const visit = (id: number) => {
        try {
            for (const tid of readdirSync(`/proc/${id}/task`)) {
                try {
                    setPriority(Number(tid), nice);
                    changed++;
                } catch {
                    // The thread ended meanwhile.
                }
            }
            const children = readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim();
            for (const child of children === '' ? [] : children.split(/\s+/)) visit(Number(child));
        } catch {
            // The process ended meanwhile, or this is not Linux.
        }
    };
    visit(pid);
    return changed;
}

export interface ActivityTally {
    executions: number;
    /** Sum of the executions' durations (ms), as the host logged them. */
    busyMs: number;
}

// The Functions host's line after every invocation: Executed 'MineBlock' (Succeeded, Id=…, Duration=123ms)
const EXECUTED = /Executed '(?:Functions\.)?MineBlock' \((?:Succeeded|Failed), Id=[^,]+, Duration=(\d+)ms\)/g;

/** MineBlock executions in a stretch of a host's log (needs `--log-level information`). */
export function tallyMineBlock(log: string): ActivityTally {
    let executions = 0;
    let busyMs = 0;
    for (const match of log.matchAll(EXECUTED)) {
        executions++;
        busyMs += Number(match[1]);
    }
    return { executions, busyMs };
}
