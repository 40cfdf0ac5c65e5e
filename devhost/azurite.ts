import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, joinOwner, leaveOwner, liveHosts, ownerFileIn, readOwner, sameProcess, writeOwner, type OwnerRecord, type Service } from './azuriteOwner';
import type { LogSink } from './logger';

/** Azurite's well-known development account (public, documented; not a secret). */
export const DEV_ACCOUNT = 'devstoreaccount1';
export const DEV_ACCOUNT_KEY =
    'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export const DEFAULT_PORTS = { blob: 10000, queue: 10001, table: 10002 } as const;

export interface AzuriteOptions {
    /** Where Azurite keeps its data, its log (azurite.log) and its owner file; ignored for data with `inMemory`. */
    location?: string;
    /** Keep data in memory only (tests); it is lost when Azurite stops. */
    inMemory?: boolean;
    /** Only the Table service (all this host needs), or the full emulator for tools that want blobs and queues. */
    services?: 'table' | 'all';
    ports?: Partial<Record<Service, number>>;
    host?: string;
    /** Told when an Azurite left by a killed host is replaced, or another one reused. */
    sink?: LogSink;
}

export interface RunningAzurite {
    /** True when this call started Azurite; false when one was already serving and is reused. */
    started: boolean;
    tablePort: number;
    /** A connection string for the running emulator's services. */
    connectionString: string;
    /** What was done, in one line for the log. */
    description: string;
    /** Azurite's own output (when this call started it). */
    logFile: string | undefined;
    /** Azurite's process id (when this call started it). */
    pid: number | undefined;
    /**
     * Logs once when storage stops answering (and once when it is back), saying what to do: a workflow call
     * made meanwhile fails with "The workflow service did not answer". Returns a function that stops watching.
     */
    watch(sink: LogSink, intervalMs?: number): () => void;
    stop(): Promise<void>;
}

const LOG_FILE = 'azurite.log';

/**
 * Starts Azurite from node_modules, or reuses one that already serves every needed service as Azurite.
 * Resolves when the services answer. Azurite's output goes to a log file, never to a pipe: a pipe to a
 * host that was killed would make Azurite's next write fail (EPIPE, SIGPIPE) and stop it.
 *
 * An Azurite that killed hosts left running (its owner file names no live host) is replaced: stopped with
 * SIGINT, which saves its data, and started anew, owned by this process. One that a running host started is
 * shared: this host joins its owner file, and whichever host stops last stops it (several hosts on one task
 * hub). One that some other program started is reused and left running. A port that answers, but not as
 * Azurite, is an error that names it.
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<RunningAzurite> {
    const host = options.host ?? '127.0.0.1';
    const services = options.services ?? 'all';
    const ports: Record<Service, number> = { ...DEFAULT_PORTS, ...options.ports };
    const connectionString = developmentConnectionString(host, ports, services);
    const wanted: Service[] = services === 'table' ? ['table'] : ['blob', 'queue', 'table'];
    const stateDir = options.location ?? mkdtempSync(join(tmpdir(), 'azurite-'));
    mkdirSync(stateDir, { recursive: true });
    const ownerFile = ownerFileIn(stateDir);

    const found = await Promise.all(wanted.map(async (service) => [service, await identify(host, ports[service])] as const));
    if (found.some(([, answer]) => answer !== 'free')) {
        const problems = found.filter(([service, answer]) => answer !== `Azurite-${capitalised(service)}`);
        if (problems.length > 0) {
            throw new Error(
                `Storage ports in use, but not all by Azurite: ${problems
                    .map(([service, answer]) => `${service} port ${ports[service]} ${answer === 'free' ? 'is free' : `answers as ${answer}`}`)
                    .join('; ')}. Stop what listens there, or choose other ports with --azurite-ports.`
            );
        }
        const owner = readOwner(ownerFile);
        const hostsStarted = owner && sameProcess(owner.azuritePid) && samePorts(owner.ports, ports);
        if (owner && hostsStarted && liveHosts(owner).length === 0) {
            options.sink?.({
                level: 'warning',
                category: 'host',
                message: `Replacing the Azurite (pid ${owner.azuritePid}) that a host which did not stop (pid ${owner.hostPid}) left running; its data is kept`,
            });
            await stopPid(owner.azuritePid);
            await waitUntil(async () => (await Promise.all(wanted.map((s) => isListening(host, ports[s])))).every((up) => !up), 10_000);
        } else {
            // This process may hold it already (a second start in one process): then the first use is the one that counts.
            const shared = owner !== undefined && hostsStarted === true && !liveHosts(owner).includes(process.pid);
            if (shared) joinOwner(ownerFile);
            const starter = owner && isAlive(owner.hostPid) ? `started by the running host pid ${owner.hostPid}` : 'started by a host';
            return {
                started: false,
                tablePort: ports.table,
                connectionString,
                description: `Reusing the Azurite already serving ${wanted.join(', ')} on ports ${wanted.map((s) => ports[s]).join(', ')}${
                    owner && hostsStarted ? ` (${starter}; it stops with the last host that uses it)` : ' (not started by a host: it keeps running when this one stops)'
                }`,
                logFile: undefined,
                pid: undefined,
                watch: (sink, intervalMs) => watchStorage(host, ports.table, undefined, undefined, sink, intervalMs),
                stop: async () => {
                    if (!owner || !shared || leaveOwner(ownerFile).length > 0) return;
                    // The last host that used it: it goes, as it would with the host that started it.
                    await stopPid(owner.azuritePid);
                    if (readOwner(ownerFile)?.azuritePid === owner.azuritePid) rmSync(ownerFile, { force: true });
                },
            };
        }
    }

    const args = ['--skipApiVersionCheck', '--silent', '--loose', '--disableTelemetry'];
    if (options.inMemory) args.push('--inMemoryPersistence');
    args.push('--location', stateDir);
    let script: string;
    if (services === 'table') {
        script = require.resolve('azurite/dist/src/table/main.js');
        args.push('--tableHost', host, '--tablePort', String(ports.table));
    } else {
        script = require.resolve('azurite/dist/src/azurite.js');
        args.push(
            ...['--blobHost', host, '--blobPort', String(ports.blob)],
            ...['--queueHost', host, '--queuePort', String(ports.queue)],
            ...['--tableHost', host, '--tablePort', String(ports.table)]
        );
    }

    const logFile = join(stateDir, LOG_FILE);
    const logFd = openSync(logFile, 'a');
    // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and Azurite must
    // outlive the host's shutdown (which still writes to it), then stop when the host stops it.
    let child: ChildProcess;
    try {
        child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', logFd, logFd], detached: true });
    } finally {
        closeSync(logFd);
    }
    // ...and stop with this process when it exits. A process killed by SIGKILL cannot: the next host then
    // finds the owner file naming a dead host, and replaces this Azurite.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.removeListener('exit', killOnExit));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stopping = { now: false };

    const deadline = Date.now() + 30_000;
    for (;;) {
        const answers = await Promise.all(wanted.map((service) => identify(host, ports[service])));
        if (answers.every((answer, i) => answer === `Azurite-${capitalised(wanted[i]!)}`)) break;
        if (child.exitCode !== null || Date.now() > deadline) {
            child.kill('SIGKILL');
            throw new Error(`Azurite did not start (exit code ${String(child.exitCode)}): ${logTail(logFile) || 'no output'} (log: ${logFile})`);
        }
        await sleep(100);
    }
    if (child.pid !== undefined) {
        const owner: OwnerRecord = { azuritePid: child.pid, hostPid: process.pid, ports, users: [] };
        writeOwner(ownerFile, owner);
    }
    return {
        started: true,
        tablePort: ports.table,
        connectionString,
        description: `Started Azurite (data in ${options.inMemory ? 'memory' : stateDir}), its log in ${logFile}`,
        logFile,
        pid: child.pid,
        watch: (sink, intervalMs) => watchStorage(host, ports.table, { child, stopping }, logFile, sink, intervalMs),
        stop: async () => {
            stopping.now = true;
            const others = child.pid !== undefined && readOwner(ownerFile)?.azuritePid === child.pid ? leaveOwner(ownerFile) : [];
            if (others.length > 0) {
                // Other hosts still use it: it outlives this process, and the last of them stops it.
                process.removeListener('exit', killOnExit);
                child.unref();
                options.sink?.({ level: 'information', category: 'host', message: `Leaving Azurite running for the hosts that still use it (pid ${others.join(', ')})` });
                return;
            }
            await stopChild(child, exited);
            if (readOwner(ownerFile)?.azuritePid === child.pid) rmSync(ownerFile, { force: true });
            if (options.location === undefined) rmSync(stateDir, { recursive: true, force: true });
        },
    };
}

function developmentConnectionString(host: string, ports: Record<Service, number>, services: 'table' | 'all'): string {
    const endpoint = (port: number) => `http://${host}:${port}/${DEV_ACCOUNT}`;
    const parts = [
        'DefaultEndpointsProtocol=http',
        `AccountName=${DEV_ACCOUNT}`,
        `AccountKey=${DEV_ACCOUNT_KEY}`,
        `TableEndpoint=${endpoint(ports.table)}`,
    ];
    if (services === 'all') parts.push(`BlobEndpoint=${endpoint(ports.blob)}`, `QueueEndpoint=${endpoint(ports.queue)}`);
    return parts.join(';') + ';';
}

/**
 * What serves a port: 'free', the Azurite service it is (its `Server` header, e.g. "Azurite-Table"), or a
 * short description of anything else. Any answer of Azurite carries the header, an error answer too.
 */
export async function identify(host: string, port: number): Promise<string> {
    if (!(await isListening(host, port))) return 'free';
    try {
        const res = await fetch(`http://${host}:${port}/${DEV_ACCOUNT}?comp=properties`, { signal: AbortSignal.timeout(3000) });
        await res.body?.cancel();
        const server = res.headers.get('server') ?? '';
        const azurite = /^(Azurite-(?:Blob|Queue|Table))\//.exec(server);
        return azurite?.[1] ?? `something else (HTTP ${res.status}${server ? `, Server: ${server}` : ''})`;
    } catch (error) {
        return `something else (no HTTP answer: ${error instanceof Error ? error.message : String(error)})`;
    }
}

/**
 * Storage that stops answering after the start is said once, with what to do, and once again when it is back.
 * Azurite of this host exiting is said at once, with its exit code and the tail of its log.
 */
function watchStorage(
    host: string,
    tablePort: number,
    own: { child: ChildProcess; stopping: { now: boolean } } | undefined,
    logFile: string | undefined,
    sink: LogSink,
    intervalMs = 5000
): () => void {
    let down = false;
    let stopped = false;
    const advice =
        'Every workflow call fails until it answers again. Stop this host (Ctrl-C) and start it again to restart Azurite, or start Azurite yourself on the same ports.';
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        if (stopped || down || own?.stopping.now) return;
        down = true;
        const tail = logFile ? logTail(logFile) : '';
        sink({
            level: 'error',
            category: 'host',
            message: `Azurite exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}${logFile ? ` (log: ${logFile})` : ''}. ${advice}`,
        });
    };
    own?.child.once('exit', onExit);
    const timer = setInterval(() => {
        void isListening(host, tablePort).then((up) => {
            if (stopped || own?.stopping.now) return;
            if (!up && !down) {
                down = true;
                sink({ level: 'error', category: 'host', message: `Storage (Azurite on ${host}:${tablePort}) stopped answering${logFile ? ` (log: ${logFile})` : ''}. ${advice}` });
            } else if (up && down) {
                down = false;
                sink({ level: 'information', category: 'host', message: `Storage (Azurite on ${host}:${tablePort}) answers again` });
            }
        });
    }, intervalMs);
    timer.unref();
    return () => {
        stopped = true;
        clearInterval(timer);
        own?.child.removeListener('exit', onExit);
    };
}

/**
 * SIGINT, not SIGTERM: Azurite's table-only entry point closes cleanly (saving its database) on SIGINT
 * only, and dies on SIGTERM with up to its autosave interval of writes lost. The full emulator takes both.
 */
async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
}

/** Stops a process this one did not start (an orphaned Azurite): SIGINT, then SIGKILL after 10 s. */
async function stopPid(pid: number): Promise<void> {
    try {
        process.kill(pid, 'SIGINT');
    } catch {
        return;
    }
    if (await waitUntil(async () => !isAlive(pid), 10_000)) return;
    try {
        process.kill(pid, 'SIGKILL');
    } catch {
        // gone meanwhile
    }
    await waitUntil(async () => !isAlive(pid), 5000);
}

function samePorts(a: Record<Service, number>, b: Record<Service, number>): boolean {
    return a.blob === b.blob && a.queue === b.queue && a.table === b.table;
}

function logTail(file: string): string {
    try {
        return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ').slice(-1000);
    } catch {
        return '';
    }
}

export function isListening(host: string, port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = connect({ host, port });
        socket.once('connect', () => {
            socket.destroy();
            resolve(true);
        });
        socket.once('error', () => resolve(false));
    });
}

/** A port that was free a moment ago (for tests that start their own Azurite). */
export function freePort(host = '127.0.0.1'): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, host, () => {
            const address = server.address();
            const port = typeof address === 'object' && address ? address.port : 0;
            server.close(() => resolve(port));
        });
    });
}

/**
 * `count` distinct ports that were free a moment ago: the OS may hand the same free port to two calls in a row
 * (seen: blob and table given one port, EADDRINUSE), so repeats are asked again.
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
    const ports = new Set<number>();
    while (ports.size < count) ports.add(await freePort(host));
    return [...ports];
}

/** Three distinct free ports for an Azurite's blob, queue and table services. */
export async function freeAzuritePorts(): Promise<{ blob: number; queue: number; table: number }> {
    const [blob, queue, table] = (await freePorts(3)) as [number, number, number];
    return { blob, queue, table };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        if (await check()) return true;
        if (Date.now() > deadline) return false;
        await sleep(100);
    }
}

const capitalised = (service: Service) => service[0]!.toUpperCase() + service.slice(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
