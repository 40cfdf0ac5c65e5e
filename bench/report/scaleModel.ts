import type { PinnedHostsFigures } from '../pinnedHosts';
import { BUSY_TOLERANCE, checkParallelRanges, DEFAULT_INSTANCE_SLOTS, INSTANCES_PER_WORKFLOW } from '../rules/parallelRanges';
import { allowedSize, checkRangeSize, FUNCTION_TIMEOUT_SECONDS, MAX_SLOW_RANGE_SECONDS, worstSlowdowns } from '../rules/rangeSize';
import type { ModelCheck, ScaleModelFigures } from '../scaleModelFigures';
import { median } from '../stats';
import { BACKEND_LABEL, bold, DEFAULTS_DOC, fmt, met, ms, pow2, ratio, result, s, times } from './format';

/** Flex Consumption's instance sizes (learn.microsoft.com/azure/azure-functions/flex-consumption-plan, "Instance memory"). */
const FLEX_SOURCE = 'https://learn.microsoft.com/en-us/azure/azure-functions/flex-consumption-plan';
/** The Durable Task Scheduler's SKUs: the Consumption SKU dispatches up to 500 actions per second. */
const DTS_SOURCE = 'https://learn.microsoft.com/azure/azure-functions/durable/durable-task-scheduler/durable-task-scheduler-billing';

/** The model's subsections of "Scale-out": the model, its check, N instances on Azure, and the defaults against their rules. */
export function renderScaleModel(m: ScaleModelFigures, pinned: PinnedHostsFigures | undefined): string[] {
    const lines = [
        '### A model of wall time for N instances',
        '',
        'Source: `bench/scaleModel.ts`, `bench/scaleModelFigures.ts`. A run is simulated block by block as MineChain runs it: block *b* needs *k_b* = ⌊nonce_b / R⌋ + 1 ranges; ' +
            "a block's first range goes alone (MineChain's slow start), range *i* ≥ 1 is dispatched when every range up to max(0, *i* − P) has answered (the sliding window of P), can start a round trip *d_P* " +
            'later (measured above: per range × P), takes R / rate on the first free core of the N·c (lowest range first, as the search pool ' +
            "serves), the hit's range only up to the hit; the block ends when the hit's range and all below it have answered. Two limits " +
            'follow. While N·c < P the cores are the bound: T ≈ W / (N·c·rate) plus up to (1 − 1/(N·c))·R/rate per block (the last ' +
            'ranges of a block leave cores idle); the window keeps the next ranges queued behind the running ones, which hides d_P. Once ' +
            'N·c ≥ P the window is: each of the P slots spends R/rate + d_P per range, T ≈ Σ_b k_b·(R/rate + d_P) / P, so **one workflow ' +
            'never uses more than P cores: PARALLEL_RANGES (at most 16) is the per-workflow bound on its scale-out**, and instances beyond ' +
            'P / c serve other workflows, not this one. Waste (ranges above a hit, stopped once it is accepted) costs CPU, not wall time: ' +
            "at most P − 1 ranges per block. Chains given by their difficulty (every row below but the measured chain's) are expected runs: " +
            'each block at the 16 midpoint quantiles of the exponential distribution of its nonce (mean 2^difficulty), averaged.',
        '',
        `Inputs: rate ${fmt(m.rate / 1e6)} MH/s per core (` +
            (m.rateMeasured
                ? 'the search pool pinned to CPU 0, measured above'
                : 'BENCHMARKS.md "Mining", one thread of the kernel; not measured in this run') +
            `); d_P from the ${BACKEND_LABEL[m.roundTrips.backend]} rows above ` +
            `(${m.roundTrips.atStart.map((d) => `d_${d.parallel} = ${ms(d.seconds * 1000)}`).join(', ')} at the start of a run; P = 64 takes d_16, not measured), ` +
            (m.roundTrips.growth === undefined
                ? 'not growing with the history: its growth is not measured in this run (the 291-range chain runs outside --smoke only), so the model takes none.'
                : `growing by ${fmt(m.roundTrips.growth * 1e6, 0)} µs per range already in the history (from the 291-range chain; every episode replays the history, so the ` +
                  'model adds it to each round trip).'),
        '',
    ];
    if (m.check !== undefined && pinned !== undefined) lines.push(...check(m.check, pinned));
    lines.push(...azure(m, pinned), '', ...defaults(m));
    return lines;
}

function check(c: ModelCheck, pinned: PinnedHostsFigures): string[] {
    const ratios = (list: ModelCheck['one']) => list.map((x) => x.model / x.measured);
    const row = (label: string, list: ModelCheck['one']) => {
        const r = median(ratios(list));
        return (
            `| ${label} | ${s(median(list.map((x) => x.model)))} | ${s(median(list.map((x) => x.measured)))} | ` +
            `${ratios(list).map((x) => fmt(x)).join(', ')} | ${bold(fmt(r), r)} |`
        );
    };
    const oneRatio = median(ratios(c.one));
    const twoRatio = median(ratios(c.two));
    const modelled = ratio(median(c.one.map((x) => x.model)), median(c.two.map((x) => x.model)));
    const measured = ratio(median(c.one.map((x) => x.measured)), median(c.two.map((x) => x.measured)));
    return [
        '| check against the measured runs (each at the rate probed before it) | model (median) | measured (median) | model / measured, each run | median |',
        '|---|---:|---:|---|---:|',
        row(`N = 1 (1 core), P = ${pinned.setup.parallel}, R = ${pow2(pinned.rangeSize)}, the chain's own nonces`, c.one),
        row('N = 2 (1 core each; the mean rate of CPU 0 and 1), same', c.two),
        `| ratio N = 2 / N = 1 | ${times(modelled)} | ${times(measured)} | | |`,
        '',
        result(`model / measured: ${bold(fmt(oneRatio), oneRatio)} at N = 1, ${bold(fmt(twoRatio), twoRatio)} at N = 2 (no target).`),
        '',
    ];
}

function azure(m: ScaleModelFigures, pinned: PinnedHostsFigures | undefined): string[] {
    const R = m.defaults.rangeSize;
    const rangeSeconds = R / m.rate;
    const lines = [
        `On Azure: Flex Consumption instances of 2048 MB (1 core; 4096 MB have 2: ${FLEX_SOURCE}) at the one-core rate measured here, \`RANGE_SIZE\` ` +
            `${pow2(R)} (the default; its rule under Defaults below). The scale controller gives one workflow ceil(P / slots) instances, its ranges in ` +
            `flight over the activity slots per instance (${DEFAULT_INSTANCE_SLOTS} on a 2048 MB instance, the deployed host.json's maxConcurrentActivityFunctions): ` +
            'a row with more instances than that is reached only by several workflows at once, and is marked so. The Consumption SKU ' +
            `of the Durable Task Scheduler that infra/app/scheduler.bicep deploys dispatches up to 500 actions per second (${DTS_SOURCE}), no bound ` +
            `for one workflow: P = 16 ranges of ${fmt(rangeSeconds, 1)} s ask for about ${fmt((16 / rangeSeconds) * 3, 1)} actions/s (a range is scheduled, ` +
            'its result processed, and its refill timer completed: about 3). What it does not publish is the latency of one round trip, which is ' +
            'what a workflow feels; the table takes d_P as measured here on the Azure Storage provider (on Azurite) and, as the bound, d = 0.',
        '',
        `| instances N (1 core each) | PARALLEL_RANGES | the measured chain${pinned ? ` (${pinned.chain.blocks} blocks, difficulty ${pinned.chain.difficulty})` : ''} | 4 blocks at difficulty 32 (2^34 expected attempts) | same, d = 0 | speed-up (2^34) | waste, core-s (2^34) |`,
        '|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const row of m.instances) {
        const reach = Math.ceil(row.parallel / DEFAULT_INSTANCE_SLOTS);
        const several = row.n > reach ? ` (several workflows: one reaches ${reach})` : '';
        lines.push(
            `| ${row.n}${several} | ${row.parallel}${row.parallel > 16 ? " (above the setting's 16)" : ''} | ${s(row.measuredChain, '(not run)')} | ` +
                `${s(row.long)} | ${s(row.bound)} | ${times(row.speedUp, 1)} | ${fmt(row.wastedCoreSeconds, 0)} |`
        );
    }
    return lines;
}

/** The figures the RANGE_SIZE and PARALLEL_RANGES rules read, and whether the defaults still meet them; the rules decide nothing here. */
function defaults(m: ScaleModelFigures): string[] {
    const { rangeSize: R, parallelRanges: P } = m.defaults;
    const worst = worstSlowdowns(m.sizes);
    const size = checkRangeSize(R, m.sizes);
    const window = checkParallelRanges(P, m.windows);
    const busy = m.windows.filter((w) => w.seconds <= window.best * BUSY_TOLERANCE);
    const sizeWhy = size.met
        ? ''
        : size.row === undefined
          ? ` (${pow2(R)} is not among the sizes modelled)`
          : !size.allowed
            ? ` (a range of ${pow2(R)} takes more than ${MAX_SLOW_RANGE_SECONDS} s on a core at a quarter of the rate)`
            : !size.withinTolerance
              ? ` (its worst, ${fmt(size.worst, 3)}, is more than 5% above the best, ${fmt(size.bestWorst, 3)})`
              : ` (${pow2(size.larger?.size ?? R)}, larger, is also within 5% of the best)`;
    const windowWhy = window.met
        ? ''
        : window.row === undefined
          ? ` (P = ${P} is not among the windows modelled)`
          : !window.busy
            ? ` (P = ${P} is more than 2% slower than the best window)`
            : !window.spreads
              ? ` (P = ${P} does not let one workflow reach ${INSTANCES_PER_WORKFLOW} instances)`
              : ` (P = ${window.smaller?.parallel} is smaller and meets both conditions)`;
    const lines = [
        '### Defaults',
        '',
        `The defaults are a decision, documented with their rules in ${DEFAULTS_DOC} and held by \`test/infra/fanOutDefaults.test.ts\` ` +
            'against the figures below as BENCHMARKS.md records them; this run only says whether the defaults still meet the rules with its own figures.',
        '',
        'RANGE_SIZE: a range must be long against its round trip (once the window is full, each range costs its slot d_P) and short against ' +
            `\`functionTimeout\` (${FUNCTION_TIMEOUT_SECONDS} s) and what a crash loses (the ranges in flight, at most P × R/rate core-seconds, done again by a ` +
            'survivor), and at the end of each block a long range leaves the other cores idle. The model in two cases that pull apart: the default chain ' +
            '(4 blocks at difficulty 27, expected) on one 2-core instance with P = 4, and the 2^34 chain on 16 one-core ' +
            'instances with P = 16; "worst" is the larger of the two slowdowns against the best size of each case.',
        '',
        '| RANGE_SIZE | one range, one core | on a core at a quarter of the rate | round trip / range (P = 16) | default chain, 1 × 2 cores | 2^34 chain, 16 × 1 core | worst | a crash loses at most (P = 16) |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        ...m.sizes.map(
            (row, k) =>
                `| ${pow2(row.size)}${row.size === R ? ' (the default)' : ''} | ${s(row.oneCoreSeconds)} | ${s(row.slowCoreSeconds)}${allowedSize(row) ? '' : ' (too long)'} | ` +
                `${fmt(row.roundTripShare * 100, 1)}% | ${s(row.defaultChainSeconds)} | ${s(row.wideChainSeconds)} | ${fmt(worst[k], 3)} | ${fmt(row.crashLossCoreSeconds, 0)} core-s |`
        ),
        '',
        'The rule (`bench/rules/rangeSize.ts`): the smallest worst slowdown, or the largest size within 5% of it, since the inputs move by ±20% between runs here and ' +
            'a larger range halves the scheduler actions, which the Durable Task Scheduler bills, and the history every episode replays; at most ' +
            `${MAX_SLOW_RANGE_SECONDS} s on a core at a quarter of the rate, a tenth of \`functionTimeout\`. The default RANGE_SIZE **${pow2(R)}** ` +
            `(${R.toLocaleString('en-US')} nonces, ${s(R / m.rate)} of one core here) still meets it with this run's figures: ${met(size.met)}${sizeWhy}.`,
        '',
        `PARALLEL_RANGES: the default chain at RANGE_SIZE ${pow2(R)} on one 2-core instance with P = ${m.windows.map((w) => w.parallel).join(', ')}: ` +
            `${m.windows.map((w) => s(w.seconds)).join(', ')} (waste ${m.windows.map((w) => fmt(w.wastedCoreSeconds, 1)).join(', ')} core-s); ` +
            `P = ${busy.map((w) => w.parallel).join(', ')} are within 2% of the best: the window hides the round trip once each core has a range queued behind its running one. ` +
            `The rule (\`bench/rules/parallelRanges.ts\`): the smallest of those that also lets one workflow alone reach ${INSTANCES_PER_WORKFLOW} instances of the default size ` +
            `(P at least ${INSTANCES_PER_WORKFLOW} × ${DEFAULT_INSTANCE_SLOTS} activity slots). The default PARALLEL_RANGES **${P}** still meets it with this run's figures: ` +
            `${met(window.met)}${windowWhy}. Above that, P buys only ` +
            "scale-out: it is the most cores one workflow takes whatever the instance count, so it is also each workflow's share of the app's " +
            'instances (a tenant with MAX_ACTIVE_WORKFLOWS running takes at most MAX_ACTIVE_WORKFLOWS × P cores).',
        '',
        result(
            `the defaults against their rules (${DEFAULTS_DOC}) with this run's figures: RANGE_SIZE ${pow2(R)} ${met(size.met)}; PARALLEL_RANGES ${P} ${met(window.met)} ` +
                `(P from **${window.smallestBusy?.parallel ?? 'none'}** up keeps a 2-core instance busy; above that it is the per-workflow bound on scale-out).`
        ),
    ];
    return lines;
}
