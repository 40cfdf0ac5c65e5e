import type { BackoffOptions } from '../../src/workflow/budgetedWait';
import type { StatusReadsFigures } from '../figures/statusReads';
import { mean, percentile } from '../stats';
import { fmt, loads, met, ms, result } from './format';

const TARGET_READS_20_S = 40;

const scheduleLabel = (schedule: 'old' | 'new', b: BackoffOptions) => `${schedule} (${b.firstDelayMs} ms × ${b.factor}, up to ${b.maxDelayMs} ms)`;

/** The "Status reads per budgeted wait" section. */
export function renderStatusReads(f: StatusReadsFigures): string {
    const newRows = f.rows.filter((r) => r.schedule === 'new');
    const ok = newRows.length > 0 ? newRows.every((r) => r.readsInWholeWait <= TARGET_READS_20_S) : undefined;
    const whole = `${f.wholeWaitMs / 1000} s`;
    return [
        '## Status reads per budgeted wait',
        '',
        'Status reads of the budgeted wait and completion lag, old and new poll schedule side by side, on each Durable ' +
            'backend of the local host with Azurite. Lag: runs of difficulty 20 to 24, 1 to 4 blocks, one at a time, from ' +
            `the run's end (start sent + \`elapsed_ms\`) to the read that saw it. Reads in ${whole}: one wait of the whole budget. ` +
            `${loads(f.loadBefore, f.loadAfter)} Source: \`bench/statusReads.ts\`.` +
            (f.skipped.length > 0 ? ` Skipped: ${f.skipped.map((s) => `${s.backend}: ${s.reason}`).join('; ')}.` : ''),
        '',
        `| backend | schedule | lag p50 | lag p90 | reads per run | reads in a ${whole} wait |`,
        '|---|---|---:|---:|---:|---:|',
        ...f.rows.map(
            (r) =>
                `| ${r.backend} | ${scheduleLabel(r.schedule, r.backoff)} | ${ms(percentile(r.lags, 50))} | ${ms(percentile(r.lags, 90))} | ` +
                `${fmt(mean(r.reads), 1)} | ${r.readsInWholeWait} |`
        ),
        '',
        result(
            `new schedule: at most ${TARGET_READS_20_S} reads in a 20 s wait on every backend run: ${met(ok)} (the lag by run length: Completion-detection lag).`
        ),
    ].join('\n');
}
