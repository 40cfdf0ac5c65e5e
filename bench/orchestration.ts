/**
 * Orchestration latency on the local host: a chain of 10 no-op activities, started and awaited through the
 * Durable HTTP API (`createAndWaitOnNewInstance`), timed from the request to the answer.
 * Three hosts run side by side in one process tree, taking turns, so machine noise hits all alike: the
 * TypeScript engine with Azure Tables on Azurite (what `npm start` uses), the TypeScript engine with the
 * in-memory store (the engine without storage), and the real Durable extension (`--durable extension`,
 * its Azure Storage provider) on the same Azurite, on a task hub of its own. Without the .NET SDK the
 * extension's row is skipped with a reason.
 *
 *   npm run build && node dist/bench/orchestration.js [--quick] [--runs 200] [--activities 10]
 */
import { parseArgs } from 'node:util';
import { fixtureApp, spawnHost, type SpawnedHost } from '../test/support/spawnHost';
import { uniqueHubName } from '../test/support/testAzurite';
import { appQueuePolling, extensionUnavailable, startBenchAzurite } from './backends';
import { type BenchOptions, fmt, load1, met, optionsFromArgv, result } from './common';
import { percentile, formatMs } from './stats';

type HostName = 'azurite' | 'memory' | 'extension';

const LABEL: Readonly<Record<HostName, string>> = {
    azurite: 'TypeScript engine, Azurite',
    memory: 'TypeScript engine, memory',
    extension: 'real extension, Azurite',
};

/**
 * The real extension reads `pollingInterval` in seconds and polls the instance's status that often while
 * it waits (1 would round every run up to a whole second); the TypeScript engine is told of the end and
 * ignores it. 10 ms adds at most 10 ms to the extension's runs.
 */
const WAIT_QUERY = 'timeout=30&pollingInterval=0.01';

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

const TARGET_P50_MS = 50;

export async function run(opts: BenchOptions, runs = opts.smoke ? 5 : opts.quick ? 50 : 200, activities = 10): Promise<string> {
    const warmup = opts.smoke ? 2 : opts.quick ? 10 : 20;
    const loadBefore = load1();
    const extensionSkipped = extensionUnavailable(opts);
    const azurite = await startBenchAzurite(opts);
    const app = fixtureApp('durable-app');
    const quiet = ['--log-level', 'warning'];
    const hosts: Partial<Record<HostName, SpawnedHost>> = {};
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
        const names = (Object.keys(LABEL) as HostName[]).filter((name) => hosts[name] !== undefined);
        const samples: Record<HostName, number[]> = { azurite: [], memory: [], extension: [] };
        for (let i = 0; i < warmup + runs; i++) {
            // Rotate which goes first, so none always follows another's garbage collection.
            const order = names.map((_, k) => names[(i + k) % names.length] as HostName);
            for (const name of order) {
                const ms = await runOnce(hosts[name] as SpawnedHost, activities);
                if (i >= warmup) samples[name].push(ms);
            }
        }
        const p50 = (name: HostName) => percentile(samples[name], 50);
        const lines = [
            '## Orchestration on the local host',
            '',
            `A chain of ${activities} no-op activities (\`NoopChain\` in \`test/fixtures/durable-app\`), started and awaited ` +
                `through the Durable HTTP API (\`POST /runtime/webhooks/durabletask/orchestrators/NoopChain?${WAIT_QUERY}\`), ` +
                `timed from the request to the answer: ${activities + 1} orchestrator episodes plus ${activities} activity invocations. ` +
                `${names.length === 3 ? 'Three' : 'Two'} hosts on the same fixture app take turns (the order rotates every round), ${warmup} warm-up runs each, then ` +
                `${runs} measured runs each: the TypeScript engine with Durable state in Azure Tables on Azurite (each episode one ` +
                'table transaction, as `npm start` runs it), the TypeScript engine with state in process memory, and the real Durable ' +
                'extension (`--durable extension`: its .NET host, Azure Storage provider with its History and Instances tables, control ' +
                'and work-item queues and lease blobs, `maxQueuePollingInterval` as in the app\'s `host.json`). Both Azurite hosts use ' +
                'one Azurite (data on disk), on task hubs of their own. The extension waits by reading the status every ' +
                `\`pollingInterval\` (10 ms); the TypeScript engine is told of the end. Load average ${fmt(loadBefore, 1)} before, ` +
                `${fmt(load1(), 1)} after. Source: \`bench/orchestration.ts\`.`,
            '',
            '| backend, store | p50 | p90 | p99 | per activity (p50) |',
            '|---|---|---|---|---|',
        ];
        for (const name of Object.keys(LABEL) as HostName[]) {
            const list = samples[name];
            if (list.length === 0) {
                lines.push(`| ${LABEL[name]} | ${extensionSkipped || 'not run'} | | | |`);
                continue;
            }
            const median = percentile(list, 50);
            lines.push(
                `| ${LABEL[name]} | ${formatMs(median)} | ${formatMs(percentile(list, 90))} | ${formatMs(percentile(list, 99))} | ${formatMs(median / activities)} |`
            );
        }
        lines.push('', `TypeScript engine, Azurite / memory at p50: ${fmt(p50('azurite') / p50('memory'), 1)}x (the cost of durable storage per run).`);
        if (hosts.extension) {
            lines.push(
                '',
                `Real extension / TypeScript engine, both on Azurite: ${fmt(p50('extension') / p50('azurite'), 1)}x at p50, ` +
                    `${fmt(percentile(samples.extension, 99) / percentile(samples.azurite, 99), 1)}x at p99 ` +
                    `(real extension / TypeScript engine in memory: ${fmt(p50('extension') / p50('memory'), 1)}x at p50).`
            );
        }
        lines.push(
            '',
            result(`10-activity orchestration, TypeScript engine on Azurite, p50 **${formatMs(p50('azurite'))}** (target under ${TARGET_P50_MS} ms: ${met(p50('azurite') < TARGET_P50_MS)}).`),
            result(
                hosts.extension
                    ? `the same on the real extension on Azurite, p50 **${formatMs(p50('extension'))}**, **${fmt(p50('extension') / p50('azurite'), 1)}x** the TypeScript engine's (no target).`
                    : `the real extension: ${extensionSkipped}.`
            )
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
