import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** Azurite's well-known development account (public, documented; not a secret). */
export const DEV_ACCOUNT = 'devstoreaccount1';
export const DEV_ACCOUNT_KEY =
    'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export const DEFAULT_PORTS = { blob: 10000, queue: 10001, table: 10002 } as const;

export interface AzuriteOptions {
    /** Where Azurite keeps its data; ignored with `inMemory`. */
    location?: string;
    /** Keep data in memory only (tests); it is lost when Azurite stops. */
    inMemory?: boolean;
    /** Only the Table service (all this host needs), or the full emulator for tools that want blobs and queues. */
    services?: 'table' | 'all';
    ports?: Partial<Record<'blob' | 'queue' | 'table', number>>;
    host?: string;
}

export interface RunningAzurite {
    /** True when this call started Azurite; false when one was already listening and is reused. */
    started: boolean;
    tablePort: number;
    /** A connection string for the running emulator's services. */
    connectionString: string;
    stop(): Promise<void>;
}

/**
 * Starts Azurite from node_modules, or reuses one that already listens on the table port.
 * Resolves when the ports accept connections.
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<RunningAzurite> {
    const host = options.host ?? '127.0.0.1';
    const services = options.services ?? 'all';
    const ports = { ...DEFAULT_PORTS, ...options.ports };
    const connectionString = developmentConnectionString(host, ports, services);

    if (await isListening(host, ports.table)) {
        return { started: false, tablePort: ports.table, connectionString, stop: async () => {} };
    }

    const args = ['--skipApiVersionCheck', '--silent', '--loose'];
    if (options.inMemory) args.push('--inMemoryPersistence');
    else if (options.location) {
        mkdirSync(options.location, { recursive: true });
        args.push('--location', options.location);
    }
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

    // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and Azurite must
    // outlive the host's shutdown (which still writes to it), then stop when the host stops it.
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    // ...and stop with this process when it exits (a process killed by SIGKILL cannot do that: the next
    // start then finds this Azurite listening and reuses it).
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.removeListener('exit', killOnExit));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 30_000;
    const wanted = services === 'table' ? [ports.table] : [ports.blob, ports.queue, ports.table];
    for (;;) {
        const ready = await Promise.all(wanted.map((port) => isListening(host, port)));
        if (ready.every(Boolean)) break;
        if (child.exitCode !== null || Date.now() > deadline) {
            child.kill('SIGKILL');
            throw new Error(`Azurite did not start (exit code ${String(child.exitCode)}): ${stderr.trim() || 'no output'}`);
        }
        await sleep(100);
    }
    return {
        started: true,
        tablePort: ports.table,
        connectionString,
        stop: () => stopChild(child, exited),
    };
}

function developmentConnectionString(
    host: string,
    ports: Record<'blob' | 'queue' | 'table', number>,
    services: 'table' | 'all'
): string {
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
