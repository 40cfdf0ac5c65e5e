/**
 * Responsiveness under load: get_mining_result latency through the MCP endpoint while a workflow's
 * mining keeps every worker thread busy, against the same calls with the host idle, in alternating
 * phases of one run.
 *
 *   npm run build && node dist/bench/responsiveness.js [--quick]
 */
import { availableParallelism } from 'node:os';
import { withApp } from './appHost';
import { type BenchOptions, load1, runIfMain, sleep } from './common';
import { cpuSeconds, waitUntilBusy, waitUntilQuiet } from './cpu';
import type { ResponsivenessFigures } from './figures/responsiveness';
import { renderResponsiveness } from './report/responsiveness';

export async function measureResponsiveness(opts: BenchOptions): Promise<ResponsivenessFigures> {
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
    return { rounds, calls, loadBefore, loadAfter: load1(), idle, loaded, busyCores };
}

runIfMain(module, measureResponsiveness, renderResponsiveness);
