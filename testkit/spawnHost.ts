import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { cliPath } from '@mcp-mining/devhost';
import { repoRoot } from './repoRoot';

/**
 * Starts the local host (`@mcp-mining/devhost`'s command line) as a child process on a fixture app and waits for its
 * `Host ready on <url>` line. Tests own the process: stop it in `after`/`t.after`, or kill it with SIGKILL and
 * `restart()` it on the same port to test recovery.
 *
 *   const host = await spawnHost({ app: fixtureApp('http-app'), args: ['--max-body-bytes', '1024'] });
 *   after(() => host.stop());
 *   const res = await fetch(`${host.url}/api/hello`);
 */

/** A fixture app's folder (its package.json and host.json) in testkit/fixtures, e.g. fixtureApp('http-app'). */
export function fixtureApp(name: string): string {
    return join(repoRoot, 'testkit', 'fixtures', name);
}

export interface SpawnHostOptions {
    /** The function app folder. */
    app: string;
    /** 0 (the default) picks a free port; restart() reuses the port actually bound. */
    port?: number;
    /** Default 'memory'. */
    storage?: 'memory' | 'azure';
    /** --durable: what runs Durable Functions; default 'ts' (the TypeScript engine). */
    durable?: 'ts' | 'extension';
    /** Default false: pass --no-azurite (tests that need Azurite start their own). */
    azurite?: boolean;
    /** --function-key <key>: turns key checking on. */
    functionKey?: string;
    /** Further CLI arguments, e.g. ['--max-body-bytes', '1024', '--log-level', 'debug']. */
    args?: readonly string[];
    /** Extra environment for the host; undefined removes a variable inherited from this process. */
    env?: Record<string, string | undefined>;
    /** How long to wait for the ready line; default 30 s. */
    readyTimeoutMs?: number;
    /** A process group of its own, so that kill() takes the host and every child in its group (an instance lost). */
    processGroup?: boolean;
    /**
     * CPUs to pin the host to (`taskset -c <list>`, e.g. '0'): its children (the extension's .NET host, worker
     * threads) inherit the affinity, so the whole host runs on them, as on an instance of that many cores.
     */
    cpus?: string;
}

export interface SpawnedHost {
    /** e.g. http://127.0.0.1:41234 */
    readonly url: string;
    readonly port: number;
    readonly pid: number | undefined;
    /** Everything the host wrote so far (logs go to stderr; the banner to stdout). */
    readonly stdout: string;
    readonly stderr: string;
    /** Resolves with the first stderr/stdout line matching `pattern`, waiting for it if needed. */
    waitForOutput(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
    /** SIGTERM (a clean shutdown), then SIGKILL if it takes longer than `graceMs` (default 5 s). Idempotent. */
    stop(graceMs?: number): Promise<void>;
    /** SIGKILL: the process (its group, with processGroup) dies at once, mid-whatever, as in a crash. */
    kill(): Promise<void>;
    /** Starts a new host with the same options on the same port (after stop() or kill()). */
    restart(overrides?: Partial<SpawnHostOptions>): Promise<SpawnedHost>;
}

// The banner names the host as a user types it (localhost) and, when that differs, the address it listens on,
// which the tests use. Matched up to "Ctrl-C", so a line cut between two reads is not taken half-way.
const READY = /Host ready on (http:\/\/\S+) \((?:listening on (http:\/\/[^;\s)]+); )?Ctrl-C/;
const live = new Map<ChildProcess, (signal: NodeJS.Signals) => void>();

// A test process that dies without its after() hooks (a test-runner timeout sends SIGTERM) still takes its
// hosts with it; then the signal does what it would have done.
const killAll = () => {
    for (const signal of live.values()) signal('SIGKILL');
};
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
        killAll();
        process.kill(process.pid, signal);
    });
}

export async function spawnHost(options: SpawnHostOptions): Promise<SpawnedHost> {
    const args = [cliPath, '--app', options.app, '--port', String(options.port ?? 0), '--storage', options.storage ?? 'memory'];
    if (!options.azurite) args.push('--no-azurite');
    if (options.functionKey !== undefined) args.push('--function-key', options.functionKey);
    if (options.durable !== undefined) args.push('--durable', options.durable);
    args.push(...(options.args ?? []));

    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [name, value] of Object.entries(options.env ?? {})) {
        if (value === undefined) delete env[name];
        else env[name] = value;
    }
    // taskset execs the command, so the child's pid is the host's own.
    const [command, commandArgs] = options.cpus === undefined ? [process.execPath, args] : ['taskset', ['-c', options.cpus, process.execPath, ...args]];
    const child = spawn(command, commandArgs, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.processGroup === true });
    // Its whole group when it has one (negative pid); a group that is gone already is no error.
    const signal = (name: NodeJS.Signals) => {
        if (options.processGroup !== true || child.pid === undefined) return void child.kill(name);
        try {
            process.kill(-child.pid, name);
        } catch {
            // exited meanwhile
        }
    };
    live.set(child, signal);
    const exited = once(child, 'exit').then(() => live.delete(child));

    const output = new Output();
    child.stdout.setEncoding('utf8').on('data', (text: string) => output.append('stdout', text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => output.append('stderr', text));

    let readyLine: string;
    try {
        readyLine = await Promise.race([
            // The real extension's .NET host creates its task hub's queues, tables and leases first.
            output.waitFor(READY, options.readyTimeoutMs ?? (options.durable === 'extension' ? 120_000 : 30_000)),
            exited.then(() => {
                throw new Error(`The host exited before it was ready (code ${child.exitCode}, ${child.signalCode}).`);
            }),
        ]);
    } catch (err) {
        signal('SIGKILL');
        await exited;
        throw new Error(`${(err as Error).message}\n--- host stderr ---\n${output.stderr}\n--- host stdout ---\n${output.stdout}`);
    }
    const ready = READY.exec(readyLine);
    const url = ready?.[2] ?? ready?.[1] ?? '';
    const port = Number(new URL(url).port);

    const terminate = async (name: NodeJS.Signals, graceMs: number) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        signal(name);
        const timer = setTimeout(() => signal('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
    };

    return {
        url,
        port,
        pid: child.pid,
        get stdout() {
            return output.stdout;
        },
        get stderr() {
            return output.stderr;
        },
        waitForOutput: (pattern, timeoutMs = 10_000) => output.waitFor(pattern, timeoutMs),
        stop: (graceMs = 5000) => terminate('SIGTERM', graceMs),
        kill: () => terminate('SIGKILL', 0),
        restart: async (overrides = {}) => {
            await terminate('SIGTERM', 5000);
            return spawnHost({ ...options, ...overrides, port });
        },
    };
}

/** Collects a child's output and lets callers wait for a line that matches. */
class Output {
    stdout = '';
    stderr = '';
    /** Complete lines only: a line still being written could match too early (half a URL, say). */
    #lines: string[] = [];
    #waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
    #partial = { stdout: '', stderr: '' };

    append(stream: 'stdout' | 'stderr', text: string): void {
        this[stream] += text;
        const lines = (this.#partial[stream] + text).split('\n');
        this.#partial[stream] = lines.pop() ?? '';
        for (const line of lines) {
            this.#lines.push(line);
            this.#waiters = this.#waiters.filter((waiter) => {
                if (!waiter.test(line)) return true;
                waiter.resolve(line);
                return false;
            });
        }
    }

    waitFor(pattern: RegExp | string, timeoutMs: number): Promise<string> {
        const test = (line: string) => (typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line));
        const seen = this.#lines.find(test);
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.#waiters = this.#waiters.filter((waiter) => waiter.resolve !== done);
                reject(new Error(`No output line matched ${String(pattern)} within ${timeoutMs} ms.`));
            }, timeoutMs);
            // A wait nobody needs any more (the host exited first) must not hold the test process open.
            timer.unref();
            const done = (line: string) => {
                clearTimeout(timer);
                resolve(line);
            };
            this.#waiters.push({ test, resolve: done });
        });
    }
}
