/**
 * Memory: resident memory (RSS) of the local host process with many running workflows, against the
 * same host before they start. Every workflow is a difficulty-32, 16-block chain, so all of them are
 * still running when measured (each with its MineBlock activity searching in the shared pool).
 *
 *   npm run build && node dist/bench/memory.js [--quick]
 */
import { residentBytes, withApp } from './appHost';
import { type BenchOptions, load1, runIfMain, sleep } from './common';
import type { MemoryFigures } from './figures/memory';
import { renderMemory } from './report/memory';

/** Starts in flight at once. */
const IN_FLIGHT = 8;
/** How many of the started workflows are asked whether they still run. */
const SAMPLE = 20;

export async function measureMemory(opts: BenchOptions): Promise<MemoryFigures> {
    const count = opts.smoke ? 20 : opts.quick ? 200 : 1000;
    const loadBefore = load1();
    let idleBytes = 0;
    let loadedBytes = 0;
    let startSeconds = 0;
    const sample = { asked: 0, running: 0 };
    await withApp({ WAIT_BUDGET_SECONDS: '0' }, async ({ mcp, host }) => {
        // Warm the host (code loaded, one workflow run) so that the baseline is a host that has served calls.
        const warm = await mcp.callTool('start_mining', { difficulty: 4, blocks: 1 });
        while ((await mcp.callTool('get_mining_result', { workflow_id: String(warm.workflow_id) })).status === 'running') await sleep(20);
        await sleep(500);
        idleBytes = residentBytes(host.pid);

        const started = performance.now();
        const ids: string[] = [];
        await Promise.all(
            Array.from({ length: IN_FLIGHT }, async (_, k) => {
                for (let i = k; i < count; i += IN_FLIGHT) {
                    const answer = await mcp.callTool('start_mining', { difficulty: 32, blocks: 16 });
                    ids.push(String(answer.workflow_id));
                }
            })
        );
        startSeconds = (performance.now() - started) / 1000;
        // Let every orchestration reach its first activity, then sample.
        await sleep(opts.smoke ? 1000 : 3000);
        loadedBytes = residentBytes(host.pid);
        for (const id of ids.slice(0, SAMPLE)) {
            sample.asked++;
            if ((await mcp.callTool('get_mining_result', { workflow_id: id })).status === 'running') sample.running++;
        }
    });
    return { count, inFlight: IN_FLIGHT, loadBefore, loadAfter: load1(), idleBytes, loadedBytes, startSeconds, sample };
}

runIfMain(module, measureMemory, renderMemory);
