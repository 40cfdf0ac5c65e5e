import type { Backend } from '../backends';
import type { CompletionLagFigures } from '../figures/completionLag';
import { max, min, percentile } from '../stats';
import { BACKEND_LABEL, bold, loads, met, ms, result, verdict } from './format';

/** The targets per where the run's end falls after the call (docs/contract.md, "The budgeted wait"). */
const BUCKETS: ReadonlyArray<{ label: string; fromMs: number; toMs: number; targetMs?: number }> = [
    { label: 'ends within 2 s', fromMs: 0, toMs: 2_000, targetMs: 150 },
    { label: 'ends at 2 to 5 s', fromMs: 2_000, toMs: 5_000 },
    { label: 'ends at 5 to 20 s', fromMs: 5_000, toMs: 20_000, targetMs: 350 },
];

const BACKENDS = ['ts', 'extension'] as const;

/** The "Completion-detection lag" section. */
export function renderCompletionLag(f: CompletionLagFigures): string {
    const lags = (backend: Backend) => f.runs[backend].map((r) => r.lag);
    const lengths = BACKENDS.flatMap((backend) => f.runs[backend].map((r) => r.length));
    const bucketLags = (backend: Backend, b: (typeof BUCKETS)[number]) =>
        f.runs[backend].filter((run) => run.endsAfter >= b.fromMs && run.endsAfter < b.toMs).map((run) => run.lag);
    const cell = (list: number[]) => (list.length === 0 ? 'none' : `${list.length}, **${ms(percentile(list, 50))}**`);
    const skipped = f.extensionSkipped || 'not run';
    const row = (backend: Backend) => {
        const list = lags(backend);
        return list.length === 0
            ? `| ${BACKEND_LABEL[backend]} | ${skipped} | | | | |`
            : `| ${BACKEND_LABEL[backend]} | ${list.length} | **${ms(percentile(list, 50))}** | ${ms(percentile(list, 90))} | ` +
                  `${ms(max(list))} | ${ms(percentile(f.runs[backend].map((r) => r.overhead), 50))} |`;
    };
    const lines = [
        '## Completion-detection lag',
        '',
        `Time from a workflow's end to \`start_mining\`'s inline answer (\`WAIT_BUDGET_SECONDS=${f.budgetSeconds}\`: a run slowed by a loaded machine still ends inline), with the app on the local ` +
            'host on each Durable backend: the TypeScript engine and the real extension, both keeping state in one Azurite ' +
            `(task hubs of their own), taking turns run by run (the order alternates), for runs of ${ms(min(lengths))} to ` +
            `${ms(max(lengths))} (\`elapsed_ms\`; difficulties ${f.difficulties.join(', ')}; 1 to ${f.blockCounts.length} blocks), one at a time. ` +
            "The end is the backend's own record of it, the timestamp of the workflow's ExecutionCompleted history event (read " +
            'afterwards with `showHistory=true`; same machine clock), so each lag covers committing the last episode and the ' +
            "budgeted wait's next status read. The last column is the whole call less the workflow's `elapsed_ms` (first to last " +
            'episode): the start, the wait for the first episode and the lag. (Until this run the end was taken as the sending of ' +
            'the request plus `elapsed_ms`, which also counted the wait for the first episode: on the real extension up to a ' +
            'control-queue poll.) ' +
            `${loads(f.loadBefore, f.loadAfter)} Source: \`bench/completionLag.ts\`, \`bench/workflowEnd.ts\`.`,
        '',
        '| backend | runs | lag p50 | lag p90 | lag max | call beyond `elapsed_ms`, p50 |',
        '|---|---:|---:|---:|---:|---:|',
        row('ts'),
        row('extension'),
        '',
        "By where the run's end falls after the call (the wait's read schedule is denser in its first second, then even):",
        '',
        '| backend | ' + BUCKETS.map((b) => `${b.label}: runs, lag p50`).join(' | ') + ' |',
        '|---|' + BUCKETS.map(() => '---:').join('|') + '|',
        ...BACKENDS.filter((backend) => f.runs[backend].length > 0).map(
            (backend) => `| ${BACKEND_LABEL[backend]} | ` + BUCKETS.map((b) => cell(bucketLags(backend, b))).join(' | ') + ' |'
        ),
        '',
        ...BACKENDS.map((backend) =>
            f.runs[backend].length === 0
                ? result(`lag on the ${BACKEND_LABEL[backend]}: ${skipped}.`)
                : result(
                      `lag p50 on the ${BACKEND_LABEL[backend]}: ` +
                          BUCKETS.filter((b) => b.targetMs !== undefined)
                              .map((b) => {
                                  const p = percentile(bucketLags(backend, b), 50);
                                  const target = b.targetMs ?? 0;
                                  return `${b.label} ${bold(ms(p, 'not measured: no run ended then'), p)} (target within ${target} ms: ${met(verdict(p, (v) => v <= target))})`;
                              })
                              .join('; ') +
                          '.'
                  )
        ),
    ];
    return lines.join('\n');
}
