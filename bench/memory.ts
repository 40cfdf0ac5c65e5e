/**
 * Memory: resident memory (RSS) of the local host process with many running workflows, against the
 * same host before they start. Every workflow is a difficulty-32, 16-block chain, so all of them are
 * still running when measured (each with its MineBlock activity searching in the shared pool).
 *
 *   npm run build && node dist/bench/memory.js [--quick]
 */
import { residentBytes, withApp } from './appHost';
import { type BenchOptions, fmt, load1, result, runIfMain, sleep } from './common';

const MB = 1024 * 1024;

export async function run(opts: BenchOptions): Promise<string> {
    const count = opts.smoke ? 20 : opts.quick ? 200 : 1000;
    const loadBefore = load1();
    let idle = 0;
    let loaded = 0;
    let running = 0;
    let startSeconds = 0;
    await withApp({ WAIT_BUDGET_SECONDS: '0' }, async ({ mcp, host }) => {
        // Warm the host (code loaded, one workflow run) so that the baseline is a host that has served calls.
        const warm = await mcp.callTool('start_mining', { difficulty: 4, blocks: 1 });
        while ((await mcp.callTool('get_mining_result', { workflow_id: String(warm.workflow_id) })).status === 'running') await sleep(20);
        await sleep(500);
        idle = residentBytes(host.pid);

        const started = performance.now();
        const ids: string[] = [];
        const inFlight = 8;
        await Promise.all(
            Array.from({ length: inFlight }, async (_, k) => {
                for (let i = k; i < count; i += inFlight) {
                    const answer = await mcp.callTool('start_mining', { difficulty: 32, blocks: 16 });
                    ids.push(String(answer.workflow_id));
                }
            })
        );
        startSeconds = (performance.now() - started) / 1000;
        // Let every orchestration reach its first activity, then sample.
        await sleep(opts.smoke ? 1000 : 3000);
        loaded = residentBytes(host.pid);
        for (const id of ids.slice(0, 20)) {
            if ((await mcp.callTool('get_mining_result', { workflow_id: id })).status === 'running') running++;
        }
        running = Math.round((running / Math.min(20, ids.length)) * ids.length);
    });
    const perWorkflow = (loaded - idle) / count;
    return [
        '## Memory',
        '',
        `Resident memory (VmRSS) of the local host process (in-memory store, so all Durable state is in it) after starting ` +
            `${count} workflows (difficulty 32, 16 blocks: all still running; started with \`start_mining\` in ${fmt(startSeconds, 1)} s, ` +
            `8 calls in flight), against the same host, warmed up, before. A sample of 20 was running when measured. ` +
            `Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/memory.ts\`.`,
        '',
        '| host | RSS |',
        '|---|---:|',
        `| idle (warmed up) | ${fmt(idle / MB, 1)} MB |`,
        `| ${count} running workflows (about ${running} running) | ${fmt(loaded / MB, 1)} MB |`,
        `| per running workflow | **${fmt(perWorkflow / 1024, 1)} KB** |`,
        '',
        'RSS grows in steps as V8 enlarges its heap, so the figure per workflow is an average over all of them, and a ' +
            'run with fewer workflows (`--quick`: 200) shows more per workflow.',
        '',
        result(`host RSS with ${count} running workflows **${fmt(loaded / MB, 0)} MB** (idle ${fmt(idle / MB, 0)} MB), **${fmt(perWorkflow / 1024, 0)} KB** per workflow (no target).`),
    ].join('\n');
}

runIfMain(module, run);
