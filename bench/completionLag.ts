/**
 * Completion-detection lag: how long after a workflow's end `start_mining` answers with its result,
 * for runs that end inside the wait budget at assorted times (the lag depends on where the end falls
 * between two status reads of the budgeted wait), on both Durable backends side by side: the app on the
 * TypeScript engine and on the real extension, both on one Azurite, taking turns run by run. Without
 * the .NET SDK the extension's row is skipped with a reason.
 *
 * The end is the backend's own: the timestamp of the workflow's ExecutionCompleted history event (see
 * workflowEnd.ts), on the same machine clock as the answer's arrival.
 *
 *   npm run build && node dist/bench/completionLag.js [--quick]
 */
import { type BenchApp, withAppOnEachBackend } from './appHost';
import { BACKEND_LABEL, type Backend } from './backends';
import { type BenchOptions, fmt, load1, met, result, runIfMain } from './common';
import { formatMs, percentile } from './stats';
import { workflowEndMs } from './workflowEnd';

/** The targets per where the run's end falls after the call (docs/contract.md, "The budgeted wait"). */
const BUCKETS: ReadonlyArray<{ label: string; fromMs: number; toMs: number; targetMs?: number }> = [
    { label: 'ends within 2 s', fromMs: 0, toMs: 2_000, targetMs: 150 },
    { label: 'ends at 2 to 5 s', fromMs: 2_000, toMs: 5_000 },
    { label: 'ends at 5 to 20 s', fromMs: 5_000, toMs: 20_000, targetMs: 350 },
];

/**
 * One run: start_mining answering inline; its lag, the workflow's length (`elapsed_ms`, first to last
 * episode), and the call's time beyond that length (the start, the first episode's wait, the lag).
 */
async function lagOf(app: BenchApp, difficulty: number, blocks: number): Promise<{ lag: number; length: number; overhead: number; endsAfter: number }> {
    const sent = Date.now();
    const answer = await app.mcp.callTool('start_mining', { difficulty, blocks });
    const received = Date.now();
    const mined = answer.result as { elapsed_ms?: number } | undefined;
    if (answer.status !== 'completed' || typeof mined?.elapsed_ms !== 'number') {
        throw new Error(`start_mining did not complete inline: ${JSON.stringify(answer).slice(0, 200)}`);
    }
    const end = await workflowEndMs(app.host, String(answer.workflow_id));
    return { lag: received - end, length: mined.elapsed_ms, overhead: received - sent - mined.elapsed_ms, endsAfter: end - sent };
}

/**
 * Longer than the tool's default 20 s, so that a run of 10 s on an idle machine still ends inline on a loaded one,
 * and under McpHttp's 60 s socket timeout; the wait's read schedule (DEFAULT_BACKOFF) does not depend on the budget.
 */
const BUDGET_SECONDS = 45;

export async function run(opts: BenchOptions): Promise<string> {
    const difficulties = opts.smoke ? [20] : opts.quick ? [20, 24, 25] : [20, 22, 23, 24, 25];
    const blockCounts = opts.smoke ? [1, 2] : [1, 2, 3, 4];
    const rounds = opts.quick ? 1 : 2;
    const loadBefore = load1();
    const lags: Record<Backend, number[]> = { ts: [], extension: [] };
    const byEnd: Record<Backend, Array<{ lag: number; endsAfter: number }>> = { ts: [], extension: [] };
    const overheads: Record<Backend, number[]> = { ts: [], extension: [] };
    const lengths: number[] = [];
    const skipped = await withAppOnEachBackend(opts, { WAIT_BUDGET_SECONDS: String(BUDGET_SECONDS) }, async (apps) => {
        const running = (['ts', 'extension'] as const).flatMap((backend) => {
            const app = apps[backend];
            return app ? [[backend, app] as const] : [];
        });
        for (const [, app] of running) await app.mcp.callTool('start_mining', { difficulty: 8, blocks: 2 }); // warm-up
        let turn = 0;
        for (let round = 0; round < rounds; round++) for (const difficulty of difficulties) {
            for (const blocks of blockCounts) {
                // Alternate which goes first, so neither always runs right after the other's mining.
                const order = turn++ % 2 === 0 ? running : [...running].reverse();
                for (const [backend, app] of order) {
                    const { lag, length, overhead, endsAfter } = await lagOf(app, difficulty, blocks);
                    lags[backend].push(lag);
                    byEnd[backend].push({ lag, endsAfter });
                    overheads[backend].push(overhead);
                    lengths.push(length);
                }
            }
        }
        return apps.extensionSkipped;
    });
    const bucketLags = (backend: Backend, b: (typeof BUCKETS)[number]) =>
        byEnd[backend].filter((run) => run.endsAfter >= b.fromMs && run.endsAfter < b.toMs).map((run) => run.lag);
    const cell = (list: number[]) => (list.length === 0 ? 'none' : `${list.length}, **${formatMs(percentile(list, 50))}**`);
    const row = (backend: Backend) =>
        lags[backend].length === 0
            ? `| ${BACKEND_LABEL[backend]} | ${skipped || 'not run'} | | | | |`
            : `| ${BACKEND_LABEL[backend]} | ${lags[backend].length} | **${formatMs(percentile(lags[backend], 50))}** | ${formatMs(percentile(lags[backend], 90))} | ` +
              `${formatMs(Math.max(...lags[backend]))} | ${formatMs(percentile(overheads[backend], 50))} |`;
    const lines = [
        '## Completion-detection lag',
        '',
        `Time from a workflow's end to \`start_mining\`'s inline answer (\`WAIT_BUDGET_SECONDS=${BUDGET_SECONDS}\`: a run slowed by a loaded machine still ends inline), with the app on the local ` +
            'host on each Durable backend: the TypeScript engine and the real extension, both keeping state in one Azurite ' +
            `(task hubs of their own), taking turns run by run (the order alternates), for runs of ${formatMs(Math.min(...lengths))} to ` +
            `${formatMs(Math.max(...lengths))} (\`elapsed_ms\`; difficulties ${difficulties.join(', ')}; 1 to ${blockCounts.length} blocks), one at a time. ` +
            "The end is the backend's own record of it, the timestamp of the workflow's ExecutionCompleted history event (read " +
            'afterwards with `showHistory=true`; same machine clock), so each lag covers committing the last episode and the ' +
            "budgeted wait's next status read. The last column is the whole call less the workflow's `elapsed_ms` (first to last " +
            'episode): the start, the wait for the first episode and the lag. (Until this run the end was taken as the sending of ' +
            'the request plus `elapsed_ms`, which also counted the wait for the first episode: on the real extension up to a ' +
            'control-queue poll.) ' +
            `Load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after. Source: \`bench/completionLag.ts\`, \`bench/workflowEnd.ts\`.`,
        '',
        '| backend | runs | lag p50 | lag p90 | lag max | call beyond `elapsed_ms`, p50 |',
        '|---|---:|---:|---:|---:|---:|',
        row('ts'),
        row('extension'),
        '',
        `By where the run's end falls after the call (the wait's read schedule is denser in its first second, then even):`,
        '',
        '| backend | ' + BUCKETS.map((b) => `${b.label}: runs, lag p50`).join(' | ') + ' |',
        '|---|' + BUCKETS.map(() => '---:').join('|') + '|',
        ...(['ts', 'extension'] as const)
            .filter((backend) => byEnd[backend].length > 0)
            .map((backend) => `| ${BACKEND_LABEL[backend]} | ` + BUCKETS.map((b) => cell(bucketLags(backend, b))).join(' | ') + ' |'),
        '',
        ...(['ts', 'extension'] as const).flatMap((backend) =>
            byEnd[backend].length === 0
                ? [result(`lag on the ${BACKEND_LABEL[backend]}: ${skipped}.`)]
                : [
                      result(
                          `lag p50 on the ${BACKEND_LABEL[backend]}: ` +
                              BUCKETS.filter((b) => b.targetMs !== undefined)
                                  .map((b) => {
                                      const p = percentile(bucketLags(backend, b), 50);
                                      return `${b.label} **${formatMs(p)}** (target within ${b.targetMs} ms: ${met(p <= (b.targetMs ?? 0))})`;
                                  })
                                  .join('; ') +
                              '.'
                      ),
                  ]
        ),
    ];
    return lines.join('\n');
}

runIfMain(module, run);
