/**
 * Responsiveness under load: get_mining_result latency through the MCP endpoint while a workflow's
 * mining keeps every worker thread busy, against the same calls with the host idle, in alternating
 * phases of one run.
 *
 *   npm run build && node dist/bench/responsiveness.js [--quick]
 */
import { availableParallelism } from 'node:os';
import { withApp } from './appHost';
import { type BenchOptions, fmt, load1, met, result, runIfMain, sleep } from './common';
import { cpuSeconds, waitUntilBusy, waitUntilQuiet } from './cpu';
import { formatMs, percentile } from './stats';

const TARGET = 2;

export async function run(opts: BenchOptions): Promise<string> {
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 4;
    const calls = opts.smoke ? 20 : opts.quick ? 100 : 250;
    const loadBefore = load1();
    const idle: number[] = [];
    const loaded: number[] = [];
    let busyCores = 0;
    await withApp({ WAIT_BUDGET_SECONDS: '0' }, async ({ mcp, host }) => {
        // A finished workflow to ask about while idle: the same read, the same kind of answer.
        const done = await mcp.callTool('start_mining', { difficulty: 1, blocks: 1 });
        const doneId = String(done.workflow_id);
        while ((await mcp.callTool('get_mining_result', { workflow_id: doneId })).status !== 'completed') await sleep(20);

        const measure = async (id: string, into: number[]) => {
            for (let k = 0; k < calls; k++) {
                const started = performance.now();
                await mcp.callTool('get_mining_result', { workflow_id: id });
                into.push(performance.now() - started);
            }
        };
        for (let round = 0; round < rounds; round++) {
            await waitUntilQuiet(host.pid, undefined, opts.smoke ? 1000 : undefined);
            await measure(doneId, idle);
            // The hardest allowed workflow (the bench lifts MAX_WORK to it): it mines for as long as we measure, on every worker.
            const started = await mcp.callTool('start_mining', { difficulty: 32, blocks: 16 });
            const id = String(started.workflow_id);
            await waitUntilBusy(host.pid, availableParallelism() * 0.8, opts.smoke ? 1000 : undefined);
            const cpuBefore = cpuSeconds(host.pid);
            const t = performance.now();
            await measure(id, loaded);
            busyCores = Math.max(busyCores, (cpuSeconds(host.pid) - cpuBefore) / ((performance.now() - t) / 1000));
            await mcp.callTool('cancel_mining', { workflow_id: id });
        }
    });
    const ratio = percentile(loaded, 99) / percentile(idle, 99);
    const row = (name: string, s: number[]) =>
        `| ${name} | ${s.length} | ${formatMs(percentile(s, 50))} | ${formatMs(percentile(s, 90))} | ${formatMs(percentile(s, 99))} |`;
    return [
        '## Responsiveness under load',
        '',
        `\`get_mining_result\` through the MCP endpoint of the local host (in-memory store), one call at a time, in ${rounds} ` +
            `alternating rounds of ${calls} calls: idle (nothing mining, asking about a finished workflow) and loaded (a ` +
            `difficulty-32 workflow mining on every worker thread; the host used ${fmt(busyCores, 1)} CPUs meanwhile). ` +
            `Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/responsiveness.ts\`.`,
        '',
        '| host | calls | p50 | p90 | p99 |',
        '|---|---:|---:|---:|---:|',
        row('idle', idle),
        row('mining on every core', loaded),
        '',
        result(`\`get_mining_result\` p99 with every core mining / idle: **${fmt(ratio)}x** (target at most ${TARGET}x: ${met(ratio <= TARGET)}).`),
    ].join('\n');
}

runIfMain(module, run);
