import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The owner file in an Azurite data folder: which Azurite a host started, and every host that uses it. Several
 * hosts on one task hub share one Azurite (docs/local-host.md, "Two hosts on one task hub"): it stops with the
 * last of them, and one whose hosts were all killed is an orphan that the next host replaces.
 */

export type Service = 'blob' | 'queue' | 'table';

export interface OwnerRecord {
    azuritePid: number;
    /** The host that owns it: the one that started it, or the one it was handed to when that one stopped. */
    hostPid: number;
    ports: Record<Service, number>;
    /** The other hosts that reuse it (absent in files written before hosts shared an Azurite). */
    users?: number[];
}

export const OWNER_FILE = 'azurite-owner.json';

export const ownerFileIn = (stateDir: string) => join(stateDir, OWNER_FILE);

export function readOwner(file: string): OwnerRecord | undefined {
    if (!existsSync(file)) return undefined;
    try {
        const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<OwnerRecord>;
        return typeof owner.azuritePid === 'number' && typeof owner.hostPid === 'number' && owner.ports ? (owner as OwnerRecord) : undefined;
    } catch {
        return undefined;
    }
}

/** Written whole and renamed into place: a host reading it meanwhile never sees half a file. */
export function writeOwner(file: string, owner: OwnerRecord): void {
    const staging = `${file}.${process.pid}.tmp`;
    writeFileSync(staging, JSON.stringify(owner) + '\n');
    renameSync(staging, file);
}

/** The hosts of the record still running (this process among them, if it is one). */
export function liveHosts(owner: OwnerRecord): number[] {
    return [...new Set([owner.hostPid, ...(owner.users ?? [])])].filter(isAlive);
}

/** This process uses the record's Azurite too; hosts that died meanwhile are dropped from the list. */
export function joinOwner(file: string): void {
    const owner = readOwner(file);
    if (!owner) return;
    const users = (owner.users ?? []).filter((pid) => pid !== owner.hostPid && isAlive(pid));
    writeOwner(file, { ...owner, users: [...new Set([...users, process.pid])] });
}

/** This process no longer uses it (an owner hands it to another host); answers the hosts that still do. */
export function leaveOwner(file: string): number[] {
    const owner = readOwner(file);
    if (!owner) return [];
    const others = liveHosts(owner).filter((pid) => pid !== process.pid);
    const [hostPid = owner.hostPid, ...users] = others;
    if (others.length > 0) writeOwner(file, { ...owner, hostPid, users });
    return others;
}

export function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
}

/** The pid is (still) an Azurite: alive, and on Linux its command line names Azurite (a pid can be reused). */
export function sameProcess(pid: number): boolean {
    if (!isAlive(pid)) return false;
    const cmdline = `/proc/${pid}/cmdline`;
    if (!existsSync(cmdline)) return process.platform !== 'linux';
    return readFileSync(cmdline, 'utf8').includes('azurite');
}
