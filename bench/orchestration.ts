/**
 * Orchestration latency on the local host: a chain of 10 no-op activities, started and awaited through the
 * Durable HTTP API (`createAndWaitOnNewInstance`), timed from the request to the answer.
 * Two hosts run side by side in one process tree, taking turns, so machine noise hits both alike:
 * Azure Tables on Azurite (what `npm start` uses) and the in-memory store (the engine without storage).
 *
 *   npm run build && node dist/bench/orchestration.js [--runs 200] [--activities 10]
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { fixtureApp, spawnHost, type SpawnedHost } from '../test/support/spawnHost';
import { startTestAzurite, uniqueHubName } from '../test/support/testAzurite';
import { percentile, formatMs } from './stats';

const WARMUP = 20;

async function runOnce(host: SpawnedHost, activities: number): Promise<number> {
    const started = performance.now();
    const res = await fetch(`${host.url}/runtime/webhooks/durabletask/orchestrators/NoopChain?timeout=30&pollingInterval=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: String(activities),
    });
    const body = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== 200 || body !== String(activities)) throw new Error(`Unexpected answer ${res.status}: ${body}`);
    return elapsed;
}

async function main(): Promise<void> {
    const { values } = parseArgs({ options: { runs: { type: 'string' }, activities: { type: 'string' } } });
    const runs = Number(values.runs ?? 200);
    const activities = Number(values.activities ?? 10);

    const loadBefore = loadavg()[0] ?? 0;
    const azurite = await startTestAzurite();
    const app = fixtureApp('durable-app');
    const quiet = ['--log-level', 'warning'];
    const hosts = {
        azurite: await spawnHost({
            app,
            storage: 'azure',
            args: quiet,
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName('bench') },
        }),
        memory: await spawnHost({ app, storage: 'memory', args: quiet, env: { TASKHUB_NAME: uniqueHubName('bench') } }),
    };
    try {
        const samples: Record<keyof typeof hosts, number[]> = { azurite: [], memory: [] };
        for (let i = 0; i < WARMUP + runs; i++) {
            // Alternate which goes first, so neither always follows the other's garbage collection.
            const order = i % 2 === 0 ? (['azurite', 'memory'] as const) : (['memory', 'azurite'] as const);
            for (const name of order) {
                const ms = await runOnce(hosts[name], activities);
                if (i >= WARMUP) samples[name].push(ms);
            }
        }
        const lines = [
            `Orchestration of ${activities} chained no-op activities, ${runs} runs per store (after ${WARMUP} warm-up runs), alternating`,
            `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
                `load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after`,
            '',
            '| store | p50 | p90 | p99 | per activity (p50) |',
            '|---|---|---|---|---|',
        ];
        for (const [name, list] of Object.entries(samples)) {
            const p50 = percentile(list, 50);
            lines.push(
                `| ${name} | ${formatMs(p50)} | ${formatMs(percentile(list, 90))} | ${formatMs(percentile(list, 99))} | ${formatMs(p50 / activities)} |`
            );
        }
        const ratio = percentile(samples.azurite, 50) / percentile(samples.memory, 50);
        lines.push('', `Azurite / memory, p50: ${ratio.toFixed(2)}x (the cost of durable storage per run)`);
        process.stdout.write(lines.join('\n') + '\n');
    } finally {
        await Promise.all(Object.values(hosts).map((host) => host.stop()));
        await azurite.stop();
    }
}

main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
});
