import { readFileSync } from 'node:fs';
import { parseConfig } from '../src/config';
import { repoRoot, type SpawnedHost, spawnHost, type SpawnHostOptions, uniqueHubName } from '@mcp-mining/testkit';
import { type Backend, extensionUnavailable, startBenchAzurite } from './backends';
import type { BenchOptions } from './common';
import { McpHttp } from './mcpHttp';

/**
 * The function app on the local host, as the end-to-end tests start it, and a client for its MCP endpoint:
 * `startApp` keeps Durable state in process memory (no storage in the figures, unless a module says
 * otherwise); `startAppOn` runs it on a given Durable backend with its state in Azurite.
 */
export interface BenchApp {
    host: SpawnedHost;
    mcp: McpHttp;
    stop(): Promise<void>;
}

const LIMITS = parseConfig({ TASKHUB_NAME: 'bench' });

/**
 * The benchmarks measure the server, not the caps per caller (every bench client is the shared tenant):
 * any number of running workflows, and MAX_WORK raised to the hardest workflow the tool's schema allows
 * (MAX_BLOCKS blocks at MAX_DIFFICULTY), which responsiveness and memory start so that it outlasts them.
 */
export const UNCAPPED = {
    MAX_ACTIVE_WORKFLOWS: '1000',
    MAX_ACTIVE_WORKFLOWS_TOTAL: '10000',
    MAX_STARTS_PER_MINUTE: '10000',
    MAX_WORK: String(LIMITS.maxBlocks * 2 ** LIMITS.maxDifficulty),
};

export function startApp(env: Record<string, string> = {}): Promise<BenchApp> {
    return startAppWith({ storage: 'memory', env: { TASKHUB_NAME: uniqueHubName('bench'), ...UNCAPPED, ...env } });
}

/**
 * The app on one Durable backend, with its state in the Azurite at `connectionString` (a task hub of its own
 * unless `env` names one). `host` pins it to CPUs or changes its arguments (default `--log-level warning`).
 */
export function startAppOn(
    backend: Backend,
    connectionString: string,
    env: Record<string, string> = {},
    host: Pick<SpawnHostOptions, 'cpus' | 'args'> = {}
): Promise<BenchApp> {
    return startAppWith({
        storage: 'azure',
        durable: backend,
        env: { AzureWebJobsStorage: connectionString, TASKHUB_NAME: uniqueHubName(`bench${backend}`), ...UNCAPPED, ...env },
        ...host,
    });
}

async function startAppWith(options: Pick<SpawnHostOptions, 'storage' | 'durable' | 'env' | 'cpus' | 'args'>): Promise<BenchApp> {
    const host = await spawnHost({ app: repoRoot, args: ['--log-level', 'warning'], ...options });
    const mcp = new McpHttp(`${host.url}/api/mcp`);
    return {
        host,
        mcp,
        stop: async () => {
            mcp.close();
            await host.stop();
        },
    };
}

/** Runs `body` against a fresh app host and stops it; a failure carries the end of the host's log. */
export async function withApp<T>(env: Record<string, string>, body: (app: BenchApp) => Promise<T>): Promise<T> {
    const app = await startApp(env);
    try {
        return await body(app);
    } catch (error) {
        const log = (app.host.stderr + app.host.stdout).slice(-2000);
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nHost log (end):\n${log}`, { cause: error });
    } finally {
        await app.stop();
    }
}

/** The apps a side-by-side benchmark runs: the TypeScript engine's always, the extension's where it can run. */
export interface BackendApps {
    ts: BenchApp;
    extension?: BenchApp;
    /** Why the extension's app is missing (its rows are skipped), or false. */
    extensionSkipped: string | false;
}

/**
 * Runs `body` against the app on each backend, both on one Azurite (task hubs of their own), and stops
 * them and the Azurite; a failure carries the end of both hosts' logs.
 */
export async function withAppOnEachBackend<T>(
    opts: BenchOptions,
    env: Record<string, string>,
    body: (apps: BackendApps) => Promise<T>
): Promise<T> {
    const extensionSkipped = extensionUnavailable(opts);
    const azurite = await startBenchAzurite(opts);
    const started: BenchApp[] = [];
    try {
        const ts = await startAppOn('ts', azurite.connectionString, env);
        started.push(ts);
        const extension = extensionSkipped === false ? await startAppOn('extension', azurite.connectionString, env) : undefined;
        if (extension) started.push(extension);
        return await body({ ts, ...(extension ? { extension } : {}), extensionSkipped });
    } catch (error) {
        const logs = started.map((app) => (app.host.stderr + app.host.stdout).slice(-1500)).join('\n---\n');
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nHost logs (end):\n${logs}`, { cause: error });
    } finally {
        for (const app of started) await app.stop();
        await azurite.stop();
    }
}

/** Resident memory of a process in bytes (Linux /proc), or NaN elsewhere. */
export function residentBytes(pid: number | undefined): number {
    try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb === undefined ? Number.NaN : Number(kb) * 1024;
    } catch {
        return Number.NaN;
    }
}
