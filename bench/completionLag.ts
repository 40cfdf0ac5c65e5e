/**
 * Completion-detection lag: how long after a workflow's end `start_mining` answers with its result,
 * for runs that end inside the wait budget at assorted times (the lag depends on where the end falls
 * between two status reads of the budgeted wait).
 *
 * The end is the orchestration's own clock: its start (the instance's creation, during the call) plus
 * the result's `elapsed_ms`, which runs to the orchestration's last episode. The start is taken as the
 * moment the request is sent, a few ms before the instance exists, so the lag shown is a little high.
 *
 *   npm run build && node dist/bench/completionLag.js [--quick]
 */
import { withApp } from './appHost';
import { type BenchOptions, fmt, load1, met, result, runIfMain } from './common';
import { formatMs, percentile } from './stats';

const TARGET_P50_MS = 100;

export async function run(opts: BenchOptions): Promise<string> {
    const difficulties = opts.quick ? [20, 24] : [20, 22, 23, 24];
    const blockCounts = [1, 2, 3, 4];
    const loadBefore = load1();
    const lags: number[] = [];
    const lengths: number[] = [];
    await withApp({ WAIT_BUDGET_SECONDS: '20' }, async ({ mcp }) => {
        await mcp.callTool('start_mining', { difficulty: 8, blocks: 2 }); // warm-up
        for (const difficulty of difficulties) {
            for (const blocks of blockCounts) {
                const sent = Date.now();
                const answer = await mcp.callTool('start_mining', { difficulty, blocks });
                const received = Date.now();
                const result = answer.result as { elapsed_ms?: number } | undefined;
                if (answer.status !== 'completed' || typeof result?.elapsed_ms !== 'number') {
                    throw new Error(`start_mining did not complete inline: ${JSON.stringify(answer).slice(0, 200)}`);
                }
                lengths.push(result.elapsed_ms);
                lags.push(received - (sent + result.elapsed_ms));
            }
        }
    });
    const p50 = percentile(lags, 50);
    return [
        '## Completion-detection lag',
        '',
        `Time from a workflow's end to \`start_mining\`'s inline answer, on the local host (in-memory store), for ` +
            `${lags.length} runs of ${formatMs(Math.min(...lengths))} to ${formatMs(Math.max(...lengths))} (difficulties ` +
            `${difficulties.join(', ')}; 1 to 4 blocks), one at a time. The end is taken from the orchestration's own clock ` +
            `(creation + \`elapsed_ms\`), the creation as the moment the request was sent, so each lag is a little high. ` +
            `Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/completionLag.ts\`.`,
        '',
        '| runs | p50 | p90 | max |',
        '|---:|---:|---:|---:|',
        `| ${lags.length} | **${formatMs(p50)}** | ${formatMs(percentile(lags, 90))} | ${formatMs(Math.max(...lags))} |`,
        '',
        result(`lag p50 **${formatMs(p50)}** (target under ${TARGET_P50_MS} ms: ${met(p50 < TARGET_P50_MS)}).`),
    ].join('\n');
}

runIfMain(module, run);
