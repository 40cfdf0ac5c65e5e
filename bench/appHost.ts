import { readFileSync } from 'node:fs';
import { repoRoot, spawnHost, type SpawnedHost } from '../test/support/spawnHost';
import { uniqueHubName } from '../test/support/testAzurite';
import { McpHttp } from './mcpHttp';

/**
 * The function app on the local host, as the end-to-end tests start it, with Durable state in
 * process memory (no storage in the figures, unless a module says otherwise), and a client for its MCP endpoint.
 */
export interface BenchApp {
    host: SpawnedHost;
    mcp: McpHttp;
    stop(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<BenchApp> {
    const host = await spawnHost({
        app: repoRoot,
        storage: 'memory',
        args: ['--log-level', 'warning'],
        // The benchmarks measure the server, not the caps per caller (every bench client is the shared tenant).
        env: { TASKHUB_NAME: uniqueHubName('bench'), MAX_ACTIVE_WORKFLOWS: '1000', ...env },
    });
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
