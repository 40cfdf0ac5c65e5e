import { ORCHESTRATION_HOSTS, WAIT_QUERY, type OrchestrationFigures, type OrchestrationHost } from '../figures/orchestration';
import { percentile } from '../stats';
import { bold, loads, met, ms, ratio, result, times, verdict } from './format';

const LABEL: Readonly<Record<OrchestrationHost, string>> = {
    azurite: 'TypeScript engine, Azurite',
    memory: 'TypeScript engine, memory',
    extension: 'real extension, Azurite',
};

const TARGET_P50_MS = 50;

/** The "Orchestration on the local host" section. */
export function renderOrchestration(f: OrchestrationFigures): string {
    const { activities, samples } = f;
    const ran = ORCHESTRATION_HOSTS.filter((name) => samples[name].length > 0);
    const p = (name: OrchestrationHost, q: number) => percentile(samples[name], q);
    const extensionRan = samples.extension.length > 0;
    const azurite50 = p('azurite', 50);
    const extension50 = p('extension', 50);
    const extensionRatio = ratio(extension50, azurite50);
    const lines = [
        '## Orchestration on the local host',
        '',
        `A chain of ${activities} no-op activities (\`NoopChain\` in \`testkit/fixtures/durable-app\`), started and awaited ` +
            `through the Durable HTTP API (\`POST /runtime/webhooks/durabletask/orchestrators/NoopChain?${WAIT_QUERY}\`), ` +
            `timed from the request to the answer: ${activities + 1} orchestrator episodes plus ${activities} activity invocations. ` +
            `${ran.length === 3 ? 'Three' : 'Two'} hosts on the same fixture app take turns (the order rotates every round), ${f.warmup} warm-up runs each, then ` +
            `${f.runs} measured runs each: the TypeScript engine with Durable state in Azure Tables on Azurite (each episode one ` +
            'table transaction, as `npm start` runs it), the TypeScript engine with state in process memory, and the real Durable ' +
            'extension (`--durable extension`: its .NET host, Azure Storage provider with its History and Instances tables, control ' +
            "and work-item queues and lease blobs, `maxQueuePollingInterval` as in the app's `host.json`). Both Azurite hosts use " +
            'one Azurite (data on disk), on task hubs of their own. The extension waits by reading the status every ' +
            `\`pollingInterval\` (10 ms); the TypeScript engine is told of the end. ${loads(f.loadBefore, f.loadAfter)} Source: \`bench/orchestration.ts\`.`,
        '',
        '| backend, store | p50 | p90 | p99 | per activity (p50) |',
        '|---|---|---|---|---|',
    ];
    for (const name of ORCHESTRATION_HOSTS) {
        if (samples[name].length === 0) {
            lines.push(`| ${LABEL[name]} | ${(name === 'extension' && f.extensionSkipped) || 'not run'} | | | |`);
            continue;
        }
        const median = p(name, 50);
        lines.push(`| ${LABEL[name]} | ${ms(median)} | ${ms(p(name, 90))} | ${ms(p(name, 99))} | ${ms(ratio(median, activities))} |`);
    }
    lines.push('', `TypeScript engine, Azurite / memory at p50: ${times(ratio(p('azurite', 50), p('memory', 50)), 1)} (the cost of durable storage per run).`);
    if (extensionRan) {
        lines.push(
            '',
            `Real extension / TypeScript engine, both on Azurite: ${times(extensionRatio, 1)} at p50, ` +
                `${times(ratio(p('extension', 99), p('azurite', 99)), 1)} at p99 ` +
                `(real extension / TypeScript engine in memory: ${times(ratio(p('extension', 50), p('memory', 50)), 1)} at p50).`
        );
    }
    lines.push(
        '',
        result(
            `10-activity orchestration, TypeScript engine on Azurite, p50 ${bold(ms(azurite50), azurite50)} ` +
                `(target under ${TARGET_P50_MS} ms: ${met(verdict(azurite50, (v) => v < TARGET_P50_MS))}).`
        ),
        result(
            extensionRan
                ? `the same on the real extension on Azurite, p50 ${bold(ms(extension50), extension50)}, ${bold(times(extensionRatio, 1), extensionRatio)} the TypeScript engine's (no target).`
                : `the real extension: ${f.extensionSkipped || 'not run'}.`
        )
    );
    return lines.join('\n');
}
