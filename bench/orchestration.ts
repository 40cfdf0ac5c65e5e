/**
 * Orchestration latency on the local host: a chain of 10 no-op activities, started and awaited through the
 * Durable HTTP API (`createAndWaitOnNewInstance`), timed from the request to the answer.
 * Two hosts run side by side in one process tree, taking turns, so machine noise hits both alike:
 * Azure Tables on Azurite (what `npm start` uses) and the in-memory store (the engine without storage).
 *
 *   npm run build && node dist/bench/orchestration.js [--quick] [--runs 200] [--activities 10]
 */
import { parseArgs } from 'node:util';
import { fixtureApp, spawnHost, type SpawnedHost } from '../test/support/spawnHost';
import { startTestAzurite, uniqueHubName } from '../test/support/testAzurite';
import { type BenchOptions, fmt, load1, met, optionsFromArgv, result } from './common';
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

const TARGET_P50_MS = 50;

export async function run(opts: BenchOptions, runs = opts.quick ? 50 : 200, activities = 10): Promise<string> {
    const loadBefore = load1();
    const azurite = await startTestAzurite();
    const app = fixtureApp('durable-app');
    const quiet = ['--log-level', 'warning'];
    const hosts: Partial<Record<'azurite' | 'memory', SpawnedHost>> = {};
    try {
        hosts.azurite = await spawnHost({
            app,
            storage: 'azure',
            args: quiet,
            env: { AzureWebJobsStorage: azurite.connectionString, TASKHUB_NAME: uniqueHubName('bench') },
        });
        hosts.memory = await spawnHost({ app, storage: 'memory', args: quiet, env: { TASKHUB_NAME: uniqueHubName('bench') } });
        const samples: Record<'azurite' | 'memory', number[]> = { azurite: [], memory: [] };
        for (let i = 0; i < WARMUP + runs; i++) {
            // Alternate which goes first, so neither always follows the other's garbage collection.
            const order = i % 2 === 0 ? (['azurite', 'memory'] as const) : (['memory', 'azurite'] as const);
            for (const name of order) {
                const ms = await runOnce(hosts[name] as SpawnedHost, activities);
                if (i >= WARMUP) samples[name].push(ms);
            }
        }
        const p50 = percentile(samples.azurite, 50);
        const lines = [
            '## Orchestration on the local host',
            '',
            `A chain of ${activities} no-op activities (\`NoopChain\` in \`test/fixtures/durable-app\`), started and awaited ` +
                'through the Durable HTTP API (`POST /runtime/webhooks/durabletask/orchestrators/NoopChain?timeout=30&pollingInterval=1`), ' +
                `timed from the request to the answer: ${activities + 1} orchestrator episodes, each committed as one Azure Tables ` +
                `transaction, plus ${activities} activity invocations. Two hosts on the same fixture app take turns (the order alternates ` +
                `every round), ${WARMUP} warm-up runs each, then ${runs} measured runs each: one keeps Durable state in Azure Tables on ` +
                'an Azurite of its own (data on disk, as `npm start` runs it), the other in process memory. ' +
                `Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/orchestration.ts\`.`,
            '',
            '| store | p50 | p90 | p99 | per activity (p50) |',
            '|---|---|---|---|---|',
        ];
        for (const [name, list] of Object.entries(samples)) {
            const median = percentile(list, 50);
            lines.push(
                `| ${name} | ${formatMs(median)} | ${formatMs(percentile(list, 90))} | ${formatMs(percentile(list, 99))} | ${formatMs(median / activities)} |`
            );
        }
        const ratio = p50 / percentile(samples.memory, 50);
        lines.push(
            '',
            `Azurite / memory at p50: ${fmt(ratio, 1)}x (the cost of durable storage per run).`,
            '',
            result(`10-activity orchestration on Azurite, p50 **${formatMs(p50)}** (target under ${TARGET_P50_MS} ms: ${met(p50 < TARGET_P50_MS)}).`)
        );
        return lines.join('\n');
    } finally {
        await Promise.all(Object.values(hosts).map((host) => host.stop()));
        await azurite.stop();
    }
}

if (require.main === module) {
    const { values } = parseArgs({ options: { runs: { type: 'string' }, activities: { type: 'string' } }, strict: false });
    const opts = optionsFromArgv();
    run(opts, typeof values.runs === 'string' ? Number(values.runs) : undefined, typeof values.activities === 'string' ? Number(values.activities) : undefined)
        .then((section) => process.stdout.write(section + '\n'))
        .catch((err: unknown) => {
            process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
            process.exit(1);
        });
}
