import type { Backend } from '../backends';
import type { PastBudgetFigures, PastBudgetRun } from '../figures/pastBudget';
import { percentile } from '../stats';
import { BACKEND_LABEL, bold, loads, ms, ratio, result, times } from './format';

/** The "A run past the wait budget, polled to the end" section. */
export function renderPastBudget(f: PastBudgetFigures): string {
    const p50 = (backend: Backend, key: keyof PastBudgetRun) => percentile(f.runs[backend].map((r) => r[key]), 50);
    const skipped = f.extensionSkipped || 'not run';
    const row = (backend: Backend) => {
        const list = f.runs[backend];
        if (list.length === 0) return `| ${BACKEND_LABEL[backend]} | ${skipped} | | | | | | |`;
        const polls = list.map((r) => r.polls);
        const fewest = Math.min(...polls);
        const most = Math.max(...polls);
        return (
            `| ${BACKEND_LABEL[backend]} | ${list.length} | **${ms(p50(backend, 'toCompleted'))}** | ` +
            `${fewest === most ? fewest : `${fewest} to ${most}`} | ` +
            `${ms(p50(backend, 'startCall'))} | ${ms(p50(backend, 'elapsed'))} | ${ms(p50(backend, 'beyondElapsed'))} | ` +
            `${ms(p50(backend, 'seenAfterEnd'))} |`
        );
    };
    const ts = p50('ts', 'toCompleted');
    const extension = p50('extension', 'toCompleted');
    const both = ratio(extension, ts);
    return [
        '## A run past the wait budget, polled to the end',
        '',
        `\`start_mining\` (difficulty ${f.difficulty}, ${f.blocks} blocks: the default chain, the same ${f.blocks} blocks every run) with ` +
            '`WAIT_BUDGET_SECONDS=1`, so it answers `running`; then `get_mining_result` every `poll_after_seconds` ' +
            '(`POLL_AFTER_SECONDS=1`), as the answer tells a client, until it answers `completed`, and the chain is re-checked. ' +
            'The app on the local host on each Durable backend, the TypeScript engine and the real extension, both keeping state ' +
            `in one Azurite (task hubs of their own), taking turns run by run (the order alternates), ${f.rounds} runs each after a ` +
            "warm-up. Time to completed is from sending `start_mining` to the answer that says `completed`; the workflow's end is " +
            'its ExecutionCompleted event; with polls a second apart, the end is seen up to a second late. The mining itself ' +
            "(`elapsed_ms`, first to last episode) swings with the machine's load; \"beyond `elapsed_ms`\" (time to completed " +
            "less `elapsed_ms`, run by run: the start and the wait for the first episode, then the end's commit and the polling) " +
            `is what the backend adds. ${loads(f.loadBefore, f.loadAfter)} Source: \`bench/pastBudget.ts\`.`,
        '',
        '| backend | runs | time to completed, p50 | polls | `start_mining` call, p50 | `elapsed_ms`, p50 | beyond `elapsed_ms`, p50 | end seen after, p50 |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        row('ts'),
        row('extension'),
        '',
        result(
            f.runs.extension.length > 0
                ? `a run past the budget, polled to the end: ${bold(ms(ts), ts)} on the TypeScript engine, ` +
                      `${bold(ms(extension), extension)} on the real extension (${bold(times(both), both)}; beyond the mining, ` +
                      `${ms(p50('ts', 'beyondElapsed'))} and ${ms(p50('extension', 'beyondElapsed'))}; no target).`
                : `a run past the budget, polled to the end: ${bold(ms(ts), ts)} on the TypeScript engine; the real extension: ${skipped}.`
        ),
    ].join('\n');
}
