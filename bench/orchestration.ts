/**
 * Orchestration latency on the local host: a chain of 10 no-op activities, started and awaited through the
 * Durable HTTP API (`createAndWaitOnNewInstance`), timed from the request to the answer.
 * Three hosts run side by side in one process tree, taking turns, so machine noise hits all alike: the
 * TypeScript engine with Azure Tables on Azurite (what `npm start` uses), the TypeScript engine with the
 * in-memory store (the engine without storage), and the real Durable extension (`--durable extension`,
 * its Azure Storage provider) on the same Azurite, on a task hub of its own. Without the .NET SDK the
 * extension's samples are empty, with the reason.
 *
 *   npm run build && node dist/bench/orchestration.js [--quick] [--runs 200] [--activities 10]
 */
import { parseArgs } from 'node:util';
import { fixtureApp, type SpawnedHost, spawnHost, uniqueHubName } from '@mcp-mining/testkit';
import { appQueuePolling, extensionUnavailable, startBenchAzurite } from './backends';
import { type BenchOptions, load1, optionsFromArgv, printSection } from './common';
import { ORCHESTRATION_HOSTS, type OrchestrationFigures, type OrchestrationHost, WAIT_QUERY } from './figures/orchestration';
import { renderOrchestration } from './report/orchestration';

async function runOnce(host: SpawnedHost, activities: number): Promise<number> {
    const started = performance.now();
    const res = await fetch(`${host.url}/runtime/webhooks/durabletask/orchestrators/NoopChain?${WAIT_QUERY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: String(activities),
    });
    const body = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200 || body !== String(activities)) throw new Error(`Unexpected answer ${res.status}: ${body.slice(0, 300)}`);
    return elapsed;
}

export async function measureOrchestration(
    opts: BenchOptions,
    runs = opts.smoke ? 5 : opts.quick ? 50 : 200,
    activities = 10
): Promise<OrchestrationFigures> {
    const warmup = opts.smoke ? 2 : opts.quick ? 10 : 20;
    const loadBefore = load1();
    const extensionSkipped = extensionUnavailable(opts);
    const azurite = await startBenchAzurite(opts);
    const app = fixtureApp('durable-app');
    const quiet = ['--log-level', 'warning'];
    const hosts: Partial<Record<OrchestrationHost, SpawnedHost>> = {};
    try {
        hosts.azurite = await spawnHost({
            app,
            storage: 'azure',
            args: quiet,
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName('bench') },
        });
        hosts.memory = await spawnHost({ app, storage: 'memory', args: quiet, env: { TASKHUB_NAME: uniqueHubName('bench') } });
        if (extensionSkipped === false) {
            hosts.extension = await spawnHost({
                app,
                storage: 'azure',
                durable: 'extension',
                args: quiet,
                env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName('benchext'), ...appQueuePolling() },
            });
        }
        const names = ORCHESTRATION_HOSTS.filter((name) => hosts[name] !== undefined);
        const samples: Record<OrchestrationHost, number[]> = { azurite: [], memory: [], extension: [] };
        for (let i = 0; i < warmup + runs; i++) {
            // Rotate which goes first, so none always follows another's garbage collection.
            const order = names.map((_, k) => names[(i + k) % names.length] as OrchestrationHost);
            for (const name of order) {
                const ms = await runOnce(hosts[name] as SpawnedHost, activities);
                if (i >= warmup) samples[name].push(ms);
            }
        }
        return { activities, warmup, runs, loadBefore, loadAfter: load1(), samples, extensionSkipped };
    } finally {
        await Promise.all(Object.values(hosts).map((host) => host.stop()));
        await azurite.stop();
    }
}

if (require.main === module) {
    const { values } = parseArgs({ options: { runs: { type: 'string' }, activities: { type: 'string' } }, strict: false });
    const runs = typeof values.runs === 'string' ? Number(values.runs) : undefined;
    const activities = typeof values.activities === 'string' ? Number(values.activities) : undefined;
    printSection(measureOrchestration(optionsFromArgv(), runs, activities).then(renderOrchestration));
}
