import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtHostDll, hasDotnet } from '@mcp-mining/devhost';
import { repoRoot, startTestAzurite, type TestAzurite } from '@mcp-mining/testkit';
import type { BenchOptions } from './common';

/**
 * The local host's two Durable backends, for benchmarks that compare them side by side in one run:
 * the TypeScript engine (Node alone) and the real Durable extension (its .NET host, Azure Storage
 * provider). Without the .NET SDK the extension's rows are skipped with a reason; the bench still runs.
 */
export type Backend = 'ts' | 'extension';

let unavailable: string | false | undefined;

/** --smoke leaves the extension out: its hosts take most of a smoke run's time, and a smoke run measures nothing. */
const SMOKE_SKIP = 'skipped: --smoke runs the TypeScript engine only';

/**
 * Why the extension does not run in this bench run, or false when it does. Builds its .NET host first
 * (cached), so no figure includes a build.
 */
export function extensionUnavailable(opts: BenchOptions): string | false {
    if (opts.smoke) return SMOKE_SKIP;
    if (unavailable === undefined) {
        if (!hasDotnet()) {
            unavailable = 'skipped: the real Durable extension needs the .NET SDK (`dotnet` on PATH), which this machine lacks';
        } else {
            try {
                builtHostDll();
                unavailable = false;
            } catch (error) {
                unavailable = `skipped: the extension's .NET host did not build (${String(error).split('\n')[0]})`;
            }
        }
    }
    return unavailable;
}

/**
 * One Azurite for every host of a benchmark (each on a task hub of its own): all three services when
 * the extension runs (it keeps queues and lease blobs too), else the Table service only.
 */
export function startBenchAzurite(opts: BenchOptions): Promise<TestAzurite> {
    return startTestAzurite(extensionUnavailable(opts) === false ? 'all' : 'table');
}

/**
 * The app's own `extensions.durableTask.storageProvider.maxQueuePollingInterval` (host.json), as an app
 * setting for hosts on a fixture app, so the extension polls its queues as the app's does (its default
 * backs off to 30 s on an idle queue).
 */
export function appQueuePolling(): Record<string, string> {
    const hostJson = JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')) as {
        extensions?: { durableTask?: { storageProvider?: { maxQueuePollingInterval?: string } } };
    };
    const interval = hostJson.extensions?.durableTask?.storageProvider?.maxQueuePollingInterval;
    return interval === undefined ? {} : { AzureFunctionsJobHost__extensions__durableTask__storageProvider__maxQueuePollingInterval: interval };
}
