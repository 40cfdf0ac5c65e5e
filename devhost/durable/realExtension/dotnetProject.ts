import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The .NET host of the real Durable extension (devhost/durable/realExtension/DurableHost): found, built on first
 * use, and cached by a hash of its sources, so a second start costs nothing and an edit rebuilds it.
 */

/** The project folder, from this file's place in the package's dist/durable/realExtension. */
export const PROJECT_DIR = resolve(__dirname, '..', '..', '..', 'durable', 'realExtension', 'DurableHost');

export class DotnetMissingError extends Error {
    override name = 'DotnetMissingError';
    constructor() {
        super(
            'The extension backend needs the .NET SDK 10 (`dotnet` on PATH): install it from https://dot.net, ' +
                'or run with --durable ts (the default, Node alone).'
        );
    }
}

/** True when `dotnet` runs here. */
export function hasDotnet(): boolean {
    const probe = spawnSync('dotnet', ['--version'], { encoding: 'utf8' });
    return probe.status === 0;
}

function sourceHash(): string {
    const hash = createHash('sha256');
    for (const name of readdirSync(PROJECT_DIR).filter((n) => /\.(cs|csproj)$/.test(n)).sort()) {
        hash.update(name).update('\0').update(readFileSync(join(PROJECT_DIR, name))).update('\0');
    }
    return hash.digest('hex').slice(0, 16);
}

/**
 * The built host's DLL, building it first if its sources changed. Builds of one project must not run at
 * once (they share obj/), so a lock folder serialises them across processes (test files run in parallel).
 */
export function builtHostDll(log: (message: string) => void = () => undefined): string {
    if (!hasDotnet()) throw new DotnetMissingError();
    const out = join(PROJECT_DIR, 'bin', 'cache', sourceHash());
    const dll = join(out, 'DurableHost.dll');
    if (existsSync(dll)) return dll;
    const lock = join(PROJECT_DIR, 'bin', 'build.lock');
    mkdirSync(join(PROJECT_DIR, 'bin'), { recursive: true });
    acquire(lock);
    try {
        if (existsSync(dll)) return dll;
        log('Building the Durable extension host (.NET, first use only)...');
        const staging = `${out}.building`;
        rmSync(staging, { recursive: true, force: true });
        const build = spawnSync('dotnet', ['build', PROJECT_DIR, '-c', 'Release', '-o', staging, '-nologo', '-v', 'q'], {
            encoding: 'utf8',
            env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
        });
        if (build.status !== 0) {
            throw new Error(`Building the Durable extension host failed:\n${build.stdout}${build.stderr}`);
        }
        renameSync(staging, out);
        return dll;
    } finally {
        rmSync(lock, { recursive: true, force: true });
    }
}

/** Waits (up to 5 minutes, a cold restore on a slow machine) for the lock; a lock older than that is stale. */
function acquire(lock: string): void {
    const deadline = Date.now() + 300_000;
    for (;;) {
        try {
            mkdirSync(lock);
            writeFileSync(join(lock, 'pid'), String(process.pid));
            return;
        } catch {
            const age = Date.now() - (statSafe(lock) ?? Date.now());
            if (age > 300_000 || Date.now() > deadline) {
                rmSync(lock, { recursive: true, force: true });
                continue;
            }
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
        }
    }
}

function statSafe(path: string): number | undefined {
    try {
        return statSync(path).mtimeMs;
    } catch {
        return undefined;
    }
}

export interface PinnedExtension {
    /** The extension bundle release the pin stands for, e.g. "4.38.0". */
    bundle: string;
    /** Microsoft.Azure.WebJobs.Extensions.DurableTask as the csproj should pin it. */
    durableTask: string;
}

/** bundle-versions.json beside the project: which bundle the pinned extension stands for. */
export function pinnedExtension(): PinnedExtension {
    const table = JSON.parse(readFileSync(join(PROJECT_DIR, 'bundle-versions.json'), 'utf8')) as Partial<PinnedExtension>;
    if (typeof table.bundle !== 'string' || typeof table.durableTask !== 'string') {
        throw new Error('bundle-versions.json must name "bundle" and "durableTask" versions');
    }
    return { bundle: table.bundle, durableTask: table.durableTask };
}

/** The version of a package the project references (DurableHost.csproj), undefined when it has none. */
export function referencedVersion(packageId: string): string | undefined {
    const csproj = readFileSync(join(PROJECT_DIR, 'DurableHost.csproj'), 'utf8');
    const escaped = packageId.replace(/[.]/g, '\\.');
    return new RegExp(`<PackageReference\\s+Include="${escaped}"\\s+Version="\\[?([^"\\]]+)\\]?"`).exec(csproj)?.[1];
}
