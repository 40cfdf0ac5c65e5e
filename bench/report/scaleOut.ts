import type { Backend } from '../backends';
import type { ScaleOutFigures } from '../figures/scaleOut';
import type { PinnedHostsFigures, PinnedRun } from '../pinnedHosts';
import type { RangeCostFigures } from '../rangeCost';
import { RECORDED_ATTEMPTS } from '../recordedAttempts';
import { median } from '../stats';
import { BACKEND_LABEL, bold, fmt, met, ms, pow2, ratio, result, s, times, verdict } from './format';
import { renderScaleModel } from './scaleModel';

const TARGET_RATIO = 1.6;

/** The "Scale-out" section: how measured, the pinned hosts, the cost of a range, then the model and the defaults. */
export function renderScaleOut(f: ScaleOutFigures): string {
    const lines = [
        '## Scale-out',
        '',
        `**How measured.** Source: \`bench/scaleOut.ts\`, \`bench/rangeCost.ts\`, \`bench/pinnedHosts.ts\`, \`bench/scaleModel.ts\`, \`bench/poolProbe.ts\`. ` +
            `Load average ${fmt(f.loadBefore, 1)} at the start and ${fmt(f.loadAfter, 1)} at the end (the machine is shared with other sessions' builds and tests: read the ratios). ` +
            'All hosts keep their Durable state in one Azurite (all three services), which runs unpinned, as does this bench process ' +
            "(the MCP client, polling every 0.5 s). Times are the workflows' own `elapsed_ms` (first episode to last), so the wait for " +
            'the first episode and the poll interval are not in them.',
        '',
        ...pinnedHosts(f.pinned, f.extensionSkipped),
        ...rangeCost(f.rangeCost, f.extensionSkipped),
        ...renderScaleModel(f.model, f.pinned),
    ];
    return lines.join('\n');
}

/** The median of the runs' `elapsed_ms`, in seconds. */
const elapsed = (runs: readonly PinnedRun[]) => median(runs.map((r) => r.seconds));

function pinnedHosts(p: PinnedHostsFigures | undefined, skipped: string | false): string[] {
    const lines = ['### One pinned host against two on one task hub', ''];
    if (p === undefined) {
        const why = skipped || 'the real extension is needed';
        return [...lines, `Not run: ${why}.`, '', result(`two pinned hosts / one, same chain on the real extension: not measured: ${why}.`), ''];
    }
    const one = elapsed(p.one);
    const two = elapsed(p.two);
    const sequential = elapsed(p.sequential);
    const scaling = ratio(one, two);
    const fannedOut = ratio(one, sequential);
    const rate0 = median(p.rates.core0);
    const rate1 = median(p.rates.core1);
    const attempts = RECORDED_ATTEMPTS[p.chain.difficulty];
    const failed = p.failures.length > 0 ? `; ${p.failures.length} run(s) failed` : '';
    lines.push(
        `The default chain at difficulty ${p.chain.difficulty} (${p.chain.blocks} blocks, ${attempts === undefined ? 'attempts not recorded' : `${attempts.toLocaleString('en-US')} attempts`}) ` +
            `with \`PARALLEL_RANGES=${p.setup.parallel}\` and \`RANGE_SIZE=${pow2(p.rangeSize)}\` (${s(ratio(p.rangeSize, rate0))} of one core here), both picked ` +
            `from a first probe of CPU 0 (${fmt(p.firstRate / 1e6)} MH/s) for a one-core run of about ${p.setup.targetSeconds} s and ranges of about ${p.setup.rangeSeconds} s, on the real ` +
            'extension (`--durable extension`), started through MCP and polled to the end: on **one host** pinned to CPU 0 ' +
            '(`taskset -c 0`; task hub of its own), and on **two hosts** on one other task hub, pinned to CPU 0 and CPU 1, started on the ' +
            `first and polled on both in turn. Every host has \`maxConcurrentActivityFunctions\` ${p.setup.activitiesPerCore} (host.json's rule, about 2 per core, for a ` +
            `1-core instance). Affinity as read from /proc (the host, its .NET host): ${p.affinity.map((a, k) => `${['one host', 'pair, first', 'pair, second'][k]}: ${a}`).join('; ')}; ` +
            `\`availableParallelism()\` in a process pinned so: ${[...new Set(p.rates.parallelism)].join(', ')} (the search pool sizes to it). ` +
            `Recorded in the input: ${recordedText(p.recorded)}. ` +
            `${Math.max(p.one.length, p.two.length)} rounds, the order alternating; just before each run the search pool's rate pinned to each CPU it uses (bench/poolProbe.ts, ${pow2(p.setup.probeNonces)} nonces): ` +
            `median ${fmt(rate0 === undefined ? undefined : rate0 / 1e6)} MH/s on CPU 0, ${fmt(rate1 === undefined ? undefined : rate1 / 1e6)} MH/s on CPU 1. The app runs its mining threads at nice 10, so on this shared machine any ` +
            'other work on their core came first (a run took from 52 to 122 s in a trial): after the warm-up the bench sets every thread of the hosts to nice 0 ' +
            `(${p.reniced.join(', ')} threads), and the probe's too, level with the other sessions' work. ` +
            `Every run gave the same chain, with the recorded attempts: ${met(p.chainsAgree)}.`,
        '',
        '| configuration | elapsed (median) | runs | client wall (median) | MineBlock executions per host, each run | MineBlock s per host, sum of durations (median; 2 at a time per host, a queued range waits in the pool) |',
        '|---|---:|---|---:|---|---|',
        pinnedRow('one host, CPU 0', p.one),
        pinnedRow('one host, CPU 0, `PARALLEL_RANGES=1` (sequential)', p.sequential),
        pinnedRow('two hosts, CPU 0 + CPU 1', p.two),
        '',
        ...(p.failures.length > 0 ? [`**${p.failures.length} run(s) failed** and are not in the table: ${p.failures.map((x) => `"${x}"`).join('; ')}.`, ''] : []),
        `One instance fanned out against the sequential walk, same host and chain: ${s(sequential)} sequential, ` +
            `${s(one)} with ${p.setup.parallel} ranges in flight: the fanned-out run takes ${bold(times(fannedOut), fannedOut)} the sequential time ` +
            '(no slower within noise is about 1.1x or less on this machine).',
        '',
        result(
            `two pinned hosts / one, same chain on the real extension: ${bold(times(scaling), scaling)} ` +
                `(target at least ${TARGET_RATIO}x: ${met(verdict(scaling, (v) => v >= TARGET_RATIO))})${failed}.`
        ),
        ''
    );
    return lines;
}

function pinnedRow(label: string, runs: readonly PinnedRun[]): string {
    if (runs.length === 0) return `| ${label} | not measured: no run completed | | | | |`;
    const perHost = runs.map((r) => r.tallies.map((t) => t.executions).join(' + ')).join('; ');
    const busy = (runs[0]?.tallies ?? []).map((_, k) => fmt(median(runs.map((r) => (r.tallies[k]?.busyMs ?? 0) / 1000)), 1)).join(' + ');
    return `| ${label} | **${s(elapsed(runs))}** | ${runs.map((r) => fmt(r.seconds, 1)).join(', ')} | ${s(median(runs.map((r) => r.wallSeconds)))} | ${perHost} | ${busy} |`;
}

const recordedText = (r: { parallelRanges: number | undefined; rangeSize: number | undefined }) =>
    `parallel_ranges ${r.parallelRanges ?? 'absent'}, range_size ${r.rangeSize ?? 'absent'}`;

function rangeCost(c: RangeCostFigures, skipped: string | false): string[] {
    const perRange = (backend: Backend, parallel: number) => median(c.rows.find((r) => r.backend === backend && r.parallel === parallel)?.perRangeMs ?? []);
    const widest = Math.max(...c.rows.map((r) => r.parallel));
    const extensionRan = c.rows.some((r) => r.backend === 'extension');
    const ts1 = perRange('ts', 1);
    const extension1 = perRange('extension', 1);
    const lines = [
        '### Cost of a range',
        '',
        `A chain of ranges that hold (almost) no work: block 0 at difficulty ${c.chain.difficulty}, \`RANGE_SIZE=${c.rangeSize}\`, so the ` +
            `search walks ${c.rows[0]?.ranges ?? 'an unmeasured number of'} ranges to the hit and each costs its dispatch to answer; the figure is \`elapsed_ms\` / ranges ` +
            `(median of ${c.rounds} runs per host, hosts taking turns, after a warm-up run), one host per backend and \`PARALLEL_RANGES\`, unpinned. ` +
            'Round trip = per range × P, the time one range takes from its dispatch to its answer when P are in flight (equal to per range when P = 1). ' +
            `At the widest window a chain of ${c.longChain.blocks} blocks at difficulty ${c.longChain.difficulty} (291 ranges) runs too, in the same turn: a longer history to replay in every episode` +
            `${c.rows.some((r) => r.long !== undefined) ? '' : ' (not in this run: --smoke leaves it out)'}.`,
        '',
        '| backend | PARALLEL_RANGES | recorded in the input | per range (median) | runs | round trip | per range, 291-range chain (runs) |',
        '|---|---:|---|---:|---|---:|---|',
    ];
    for (const row of c.rows) {
        const value = median(row.perRangeMs);
        const long = row.long && row.long.perRangeMs.length > 0 ? `${ms(median(row.long.perRangeMs))} (${row.long.perRangeMs.map((v) => fmt(v, 0)).join(', ')})` : '';
        lines.push(
            `| ${BACKEND_LABEL[row.backend]} | ${row.parallel} | ${recordedText(row.recorded)} | **${ms(value)}** | ${row.perRangeMs.map((v) => fmt(v, 0)).join(', ')} | ` +
                `${ms(value === undefined ? undefined : value * row.parallel)} | ${long} |`
        );
    }
    if (skipped !== false) lines.push(`| ${BACKEND_LABEL.extension} | | ${skipped} | | | | |`);
    lines.push(
        '',
        result(
            `cost of a range, sequential: ${bold(ms(ts1), ts1)} on the TypeScript engine` +
                (extensionRan ? `, ${bold(ms(extension1), extension1)} on the real extension` : `; the real extension: ${skipped || 'not run'}`) +
                ` (with ${widest} in flight: ${c.rows
                    .filter((r) => r.parallel === widest)
                    .map((r) => `${ms(median(r.perRangeMs))} ${r.backend === 'ts' ? 'TypeScript' : 'extension'}`)
                    .join(', ')}; no target).`
        ),
        ''
    );
    return lines;
}
