/**
 * Scale-out: one fanned-out MineChain run on one host of the real extension pinned to one core, against the
 * same run on two hosts of one task hub pinned to a core each; the cost of a range (dispatch to answer) on
 * each Durable backend; and from those, the wall-time model for N instances (bench/scaleModel.ts), checked
 * against the two measured runs. Every configuration is measured in the same run, taking turns.
 *
 *   npm run build && node dist/bench/scaleOut.js [--quick | --smoke]
 *
 * --smoke runs the cost per range on the TypeScript engine only (the extension's hosts would take most of a
 * smoke run); the two-host part needs the extension and is skipped then, saying why.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { MiningResult } from '../src/jobs/mining/contracts';
import { uniqueHubName } from '../test/support/testAzurite';
import { type BenchApp, startAppOn } from './appHost';
import { BACKEND_LABEL, type Backend, extensionUnavailable, startBenchAzurite } from './backends';
import { type BenchOptions, fmt, load1, met, result, runIfMain, sleep } from './common';
import { affinityOfTree, type ActivityTally, reniceTree, tallyMineBlock } from './hostProcesses';
import type { McpHttp } from './mcpHttp';
import { RECORDED_ATTEMPTS } from './mining';
import { type ModelParameters, modelExpectedRun, modelRun } from './scaleModel';
import { percentile } from './stats';

/**
 * The one-core run should take about a minute (40 to 90 s): the chain (the default one, 4 blocks from GENESIS, at
 * a difficulty of RECORDED_ATTEMPTS) and the range size (about 1.5 s of one core) are picked from the pool's
 * rate pinned to CPU 0, measured first, because on a shared machine that rate moves several-fold with the
 * load (the mining threads run at nice 10, so any other work on the core comes first).
 */
const SCALE_TARGET_S = 60;
const SCALE_RANGE_S = 1.5;
const SCALE_BLOCKS = 4;
const SCALE_PARALLEL = 4;
/** host.json's rule (about 2 activities per core of the instance) for a host of one core. */
const ACTIVITIES_PER_CORE = 2;
const TARGET_RATIO = 1.6;
/** The pool probe's work: a few seconds of one core. */
const PROBE_NONCES = 2 ** 22;

/** The smallest RANGE_SIZE, over a block whose nonce is known: the ranges are all but empty, so a range costs its dispatch. */
const DISPATCH_RANGE = 1024;
/** Block 0 at difficulty 16 has nonce 55,783: 55 ranges of 1024 (13: nonce 14,817, 15 ranges). */
const DISPATCH_CHAIN = { difficulty: 16, blocks: 1 } as const;
const SMOKE_DISPATCH_CHAIN = { difficulty: 13, blocks: 1 } as const;
/**
 * Blocks 0 and 1 at difficulty 17 (nonces 147,368 and 150,143): 291 ranges of 1024. Against the 55-range chain, at
 * the widest window, it shows how a range's round trip grows with the run's history (every episode replays it).
 */
const LONG_DISPATCH_CHAIN = { difficulty: 17, blocks: 2 } as const;

/** How often a run is polled; the figures are the workflow's own `elapsed_ms`, so this only adds to the client's wall time. */
const POLL_MS = 500;
const BUDGET = { WAIT_BUDGET_SECONDS: '2' };

/** Flex Consumption's instance sizes (learn.microsoft.com/azure/azure-functions/flex-consumption-plan, "Instance memory"). */
const FLEX_SOURCE = 'https://learn.microsoft.com/en-us/azure/azure-functions/flex-consumption-plan';
/** The Durable Task Scheduler's SKUs: the Consumption SKU dispatches up to 500 actions per second. */
const DTS_SOURCE = 'https://learn.microsoft.com/azure/azure-functions/durable/durable-task-scheduler/durable-task-scheduler-billing';
/** Activity slots of a 2048 MB Flex Consumption instance, as the staged host.json says (infra/hooks/stage-package.mjs). */
const SLOTS_2048 = 2;
/** host.json functionTimeout: a range must stay far below it even on a slow, shared core. */
const FUNCTION_TIMEOUT_S = 600;

interface Mined {
    result: MiningResult;
    workflowId: string;
    wallMs: number;
}

/** Starts a chain through the first host's MCP endpoint and polls it to the end, the hosts taking turns answering. */
async function mine(mcps: readonly McpHttp[], args: { difficulty: number; blocks: number }): Promise<Mined> {
    const started = performance.now();
    let status = await (mcps[0] as McpHttp).callTool('start_mining', args);
    const workflowId = String(status.workflow_id);
    for (let turn = 1; status.status === 'running'; turn++) {
        await sleep(POLL_MS);
        status = await (mcps[turn % mcps.length] as McpHttp).callTool('get_mining_result', { workflow_id: workflowId });
    }
    if (status.status !== 'completed') throw new Error(`${workflowId} ended ${String(status.status)}: ${JSON.stringify(status).slice(0, 300)}`);
    return { result: status.result as MiningResult, workflowId, wallMs: performance.now() - started };
}

/** Ranges a run needed up to each block's hit: the sequential search's count. */
function rangesTo(result: MiningResult, rangeSize: number): number {
    return result.blocks.reduce((sum, block) => sum + Math.floor(block.nonce / rangeSize) + 1, 0);
}

/** The fan-out settings a workflow recorded in its input at start (absent: this build does not record them). */
async function recordedSettings(app: BenchApp, workflowId: string): Promise<string> {
    const res = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances/${encodeURIComponent(workflowId)}`);
    const status = (await res.json()) as { input?: { parallel_ranges?: number; range_size?: number } };
    return `parallel_ranges ${status.input?.parallel_ranges ?? 'absent'}, range_size ${status.input?.range_size ?? 'absent'}`;
}

const median = (values: readonly number[]) => percentile(values, 50);

/** The search pool's rate pinned to one CPU, in a process of its own (bench/poolProbe.ts). */
async function probeRate(cpu: string, nonces: number): Promise<{ rate: number; parallelism: number }> {
    const { stdout } = await promisify(execFile)('taskset', ['-c', cpu, process.execPath, join(__dirname, 'poolProbe.js'), String(nonces)]);
    const probe = JSON.parse(stdout) as { parallelism: number; hashes: number; seconds: number };
    return { rate: probe.hashes / probe.seconds, parallelism: probe.parallelism };
}

interface DispatchRow {
    backend: Backend;
    parallel: number;
    app: BenchApp;
    perRangeMs: number[];
    ranges: number;
    recorded: string;
    /** The long chain's figures, at the widest window only (not with --smoke). */
    long?: { perRangeMs: number[]; ranges: number };
}

interface ScaleRun {
    /** Hashes per second per core of the cores it ran on, probed just before. */
    rate: number;
    seconds: number;
    wallSeconds: number;
    tallies: ActivityTally[];
}

interface ScaleOutcome {
    chain: { difficulty: number; blocks: number };
    rangeSize: number;
    /** The rate the chain was picked by. */
    firstRate: number;
    /** Threads set to nice 0 per host. */
    reniced: number[];
    one: ScaleRun[];
    /** One host, CPU 0, PARALLEL_RANGES 1: the sequential walk the fanned-out run on one instance must not lose to. */
    sequential: ScaleRun[];
    two: ScaleRun[];
    /** Runs that did not complete, and why. */
    failures: string[];
    rates: { core0: number[]; core1: number[]; parallelism: number[] };
    affinity: string[];
    attempts: number[];
    chainsAgree: boolean;
    recorded: string;
}

export async function run(opts: BenchOptions): Promise<string> {
    const loadBefore = load1();
    const skipped = extensionUnavailable(opts);
    const backends: Backend[] = skipped === false ? ['ts', 'extension'] : ['ts'];
    const parallels = opts.smoke ? [1, 4] : [1, 4, 16];
    const dispatchChain = opts.smoke ? SMOKE_DISPATCH_CHAIN : DISPATCH_CHAIN;
    const dispatchRounds = opts.smoke ? 1 : opts.quick ? 2 : 3;
    const scaleRounds = opts.quick ? 2 : 5;
    const azurite = await startBenchAzurite(opts);
    const apps: BenchApp[] = [];
    try {
        // 1. The cost of a range on each backend, sequential and with ranges in flight.
        const rows: DispatchRow[] = [];
        for (const backend of backends) {
            const started = await Promise.all(
                parallels.map((parallel) =>
                    startAppOn(backend, azurite.connectionString, { ...BUDGET, PARALLEL_RANGES: String(parallel), RANGE_SIZE: String(DISPATCH_RANGE) })
                )
            );
            apps.push(...started);
            started.forEach((app, k) => {
                const parallel = parallels[k] as number;
                const long = !opts.smoke && parallel === Math.max(...parallels) ? { perRangeMs: [], ranges: 0 } : undefined;
                rows.push({ backend, parallel, app, perRangeMs: [], ranges: 0, recorded: '', ...(long ? { long } : {}) });
            });
        }
        for (const row of rows) {
            const warm = await mine([row.app.mcp], { difficulty: 8, blocks: 1 });
            row.recorded = await recordedSettings(row.app, warm.workflowId);
        }
        for (let round = 0; round < dispatchRounds; round++) {
            for (let k = 0; k < rows.length; k++) {
                const row = rows[(round + k) % rows.length] as DispatchRow;
                const mined = await mine([row.app.mcp], dispatchChain);
                row.ranges = rangesTo(mined.result, DISPATCH_RANGE);
                row.perRangeMs.push(mined.result.elapsed_ms / row.ranges);
                if (row.long) {
                    const longer = await mine([row.app.mcp], LONG_DISPATCH_CHAIN);
                    row.long.ranges = rangesTo(longer.result, DISPATCH_RANGE);
                    row.long.perRangeMs.push(longer.result.elapsed_ms / row.long.ranges);
                }
            }
        }
        for (const app of apps.splice(0)) await app.stop();

        // 2. One chain on one pinned host against two pinned hosts on one task hub.
        const scale = skipped === false && !opts.smoke ? await scaleOut(azurite.connectionString, scaleRounds, apps) : undefined;
        return section({ opts, loadBefore, rows, dispatchChain, dispatchRounds, scale, skipped });
    } finally {
        for (const app of apps) await app.stop();
        await azurite.stop();
    }
}

/** The chain and range size for a one-core run of about SCALE_TARGET_S at `rate`. */
function scaleChain(rate: number): { difficulty: number; blocks: number; rangeSize: number } {
    const difficulties = Object.keys(RECORDED_ATTEMPTS).map(Number);
    const off = (d: number) => Math.abs(Math.log((RECORDED_ATTEMPTS[d] as number) / rate / SCALE_TARGET_S));
    const difficulty = difficulties.reduce((best, d) => (off(d) < off(best) ? d : best), difficulties[0] as number);
    const rangeSize = 2 ** Math.min(27, Math.max(16, Math.round(Math.log2(rate * SCALE_RANGE_S))));
    return { difficulty, blocks: SCALE_BLOCKS, rangeSize };
}

async function scaleOut(connectionString: string, rounds: number, apps: BenchApp[]): Promise<ScaleOutcome> {
    const firstRate = (await probeRate('0', PROBE_NONCES)).rate;
    const { rangeSize, ...chain } = scaleChain(firstRate);
    const env = {
        ...BUDGET,
        PARALLEL_RANGES: String(SCALE_PARALLEL),
        RANGE_SIZE: String(rangeSize),
        AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: String(ACTIVITIES_PER_CORE),
    };
    // Information level: the hosts' "Executed 'MineBlock'" lines count each host's activities.
    const verbose = ['--log-level', 'information'];
    const hubOne = uniqueHubName('scaleone');
    const hubTwo = uniqueHubName('scaletwo');
    const [single, first, walker] = await Promise.all([
        startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: hubOne }, { cpus: '0', args: verbose }),
        startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: hubTwo }, { cpus: '0', args: verbose }),
        startAppOn('extension', connectionString, { ...env, PARALLEL_RANGES: '1', TASKHUB_NAME: uniqueHubName('scaleseq') }, { cpus: '0', args: verbose }),
    ]);
    apps.push(single, first, walker);
    const second = await startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: hubTwo }, { cpus: '1', args: verbose });
    apps.push(second);
    const pair = [first, second];
    const affinity = [single, first, second].map((app) => affinityOfTree(app.host.pid).join(' '));

    // Warm-up: 4 blocks of one range each, so both hosts of the pair likely take some (their pools, the JIT).
    const warm = await mine([single.mcp], { difficulty: 22, blocks: 4 });
    await mine([walker.mcp], { difficulty: 22, blocks: 4 });
    await mine([first.mcp, second.mcp], { difficulty: 22, blocks: 4 });
    const recorded = await recordedSettings(single, warm.workflowId);
    // The pools' threads exist now (they live as long as the host): from nice 10 to 0, level with the machine's other work.
    const reniced = [single, first, second, walker].map((app) => reniceTree(app.host.pid, 0));

    const outcome: ScaleOutcome = { chain, rangeSize, firstRate, reniced, one: [], sequential: [], two: [], failures: [], rates: { core0: [], core1: [], parallelism: [] }, affinity, attempts: [], chainsAgree: true, recorded };
    let reference: string | undefined;
    const runOn = async (hosts: BenchApp[]): Promise<ScaleRun> => {
        // The rate of the cores the run is about to use, just before it: the model's input for this run.
        const probes = await Promise.all(hosts.map((_, k) => probeRate(String(k), PROBE_NONCES)));
        probes.forEach((probe, k) => {
            (k === 0 ? outcome.rates.core0 : outcome.rates.core1).push(probe.rate);
            outcome.rates.parallelism.push(probe.parallelism);
        });
        const offsets = hosts.map((app) => app.host.stderr.length);
        const mined = await mine(hosts.map((app) => app.mcp), chain);
        const blocks = JSON.stringify(mined.result.blocks);
        reference ??= blocks;
        if (blocks !== reference || mined.result.total_attempts !== RECORDED_ATTEMPTS[chain.difficulty]) outcome.chainsAgree = false;
        outcome.attempts = mined.result.blocks.map((block) => block.nonce + 1);
        // The host logs each activity's end a moment after the workflow can have ended.
        await sleep(1000);
        return {
            rate: probes.reduce((sum, probe) => sum + probe.rate, 0) / probes.length,
            seconds: mined.result.elapsed_ms / 1000,
            wallSeconds: mined.wallMs / 1000,
            tallies: hosts.map((app, k) => tallyMineBlock(app.host.stderr.slice(offsets[k]))),
        };
    };
    // A failed run is a finding, not the end of the benchmark: it is counted and reported, with the hosts' logs on stderr.
    const attempt = async (hosts: BenchApp[], into: ScaleRun[]) => {
        try {
            into.push(await runOn(hosts));
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            outcome.failures.push(`${hosts.length === 1 ? (into === outcome.sequential ? 'one host, sequential' : 'one host') : 'two hosts'}: ${message.slice(0, 200)}`);
            process.stderr.write(`scaleOut: a run failed: ${message}\n${hosts.map((app) => app.host.stderr.slice(-4000)).join('\n---\n')}\n`);
        }
    };
    for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so neither always follows the other.
        const steps = [() => attempt([single], outcome.one), () => attempt(pair, outcome.two), () => attempt([walker], outcome.sequential)];
        if (round % 2 === 1) steps.reverse();
        for (const step of steps) await step();
    }
    return outcome;
}

interface SectionInput {
    opts: BenchOptions;
    loadBefore: number;
    rows: DispatchRow[];
    dispatchChain: { difficulty: number; blocks: number };
    dispatchRounds: number;
    scale: ScaleOutcome | undefined;
    skipped: string | false;
}

const ms = (value: number) => `${fmt(value, 1)} ms`;
const s = (value: number) => `${fmt(value, 1)} s`;
const pow2 = (value: number) => `2^${Math.round(Math.log2(value))}`;

function section(input: SectionInput): string {
    const { rows, scale } = input;
    const perRange = (backend: Backend, parallel: number) => median(rows.find((r) => r.backend === backend && r.parallel === parallel)?.perRangeMs ?? []);
    const costs = costsOf(rows);
    const lines = [
        '## Scale-out',
        '',
        `**How measured.** Source: \`bench/scaleOut.ts\`, \`bench/scaleModel.ts\`, \`bench/poolProbe.ts\`. Load average ${fmt(input.loadBefore, 1)} at the ` +
            `start and ${fmt(load1(), 1)} at the end (the machine is shared with other sessions' builds and tests: read the ratios). ` +
            'All hosts keep their Durable state in one Azurite (all three services), which runs unpinned, as does this bench process ' +
            '(the MCP client, polling every 0.5 s). Times are the workflows\' own `elapsed_ms` (first episode to last), so the wait for ' +
            'the first episode and the poll interval are not in them.',
        '',
    ];

    // 1. Two hosts against one.
    lines.push('### One pinned host against two on one task hub', '');
    let ratio = Number.NaN;
    if (scale === undefined) {
        lines.push(`Not run: ${input.skipped || 'the real extension is needed'}.`, '');
    } else {
        const one = median(scale.one.map((r) => r.seconds));
        const two = median(scale.two.map((r) => r.seconds));
        ratio = one / two;
        const rate0 = median(scale.rates.core0);
        const rate1 = median(scale.rates.core1);
        lines.push(
            `The default chain at difficulty ${scale.chain.difficulty} (${scale.chain.blocks} blocks, ${RECORDED_ATTEMPTS[scale.chain.difficulty]?.toLocaleString('en-US')} attempts) ` +
                `with \`PARALLEL_RANGES=${SCALE_PARALLEL}\` and \`RANGE_SIZE=${pow2(scale.rangeSize)}\` (${fmt(scale.rangeSize / rate0, 1)} s of one core here), both picked ` +
                `from a first probe of CPU 0 (${fmt(scale.firstRate / 1e6)} MH/s) for a one-core run of about ${SCALE_TARGET_S} s and ranges of about ${SCALE_RANGE_S} s, on the real ` +
                'extension (`--durable extension`), started through MCP and polled to the end: on **one host** pinned to CPU 0 ' +
                `(\`taskset -c 0\`; task hub of its own), and on **two hosts** on one other task hub, pinned to CPU 0 and CPU 1, started on the ` +
                `first and polled on both in turn. Every host has \`maxConcurrentActivityFunctions\` ${ACTIVITIES_PER_CORE} (host.json's rule, about 2 per core, for a ` +
                `1-core instance). Affinity as read from /proc (the host, its .NET host): ${scale.affinity.map((a, k) => `${['one host', 'pair, first', 'pair, second'][k]}: ${a}`).join('; ')}; ` +
                `\`availableParallelism()\` in a process pinned so: ${[...new Set(scale.rates.parallelism)].join(', ')} (the search pool sizes to it). Recorded in the input: ${scale.recorded}. ` +
                `${Math.max(scale.one.length, scale.two.length)} rounds, the order alternating; just before each run the search pool's rate pinned to each CPU it uses (bench/poolProbe.ts, ${pow2(PROBE_NONCES)} nonces): ` +
                `median ${fmt(rate0 / 1e6)} MH/s on CPU 0, ${fmt(rate1 / 1e6)} MH/s on CPU 1. The app runs its mining threads at nice 10, so on this shared machine any ` +
                `other work on their core came first (a run took from 52 to 122 s in a trial): after the warm-up the bench sets every thread of the hosts to nice 0 ` +
                `(${scale.reniced.join(', ')} threads), and the probe's too, level with the other sessions' work. ` +
                `Every run gave the same chain, with the recorded attempts: ${met(scale.chainsAgree)}.`,
            '',
            '| configuration | elapsed (median) | runs | client wall (median) | MineBlock executions per host, each run | MineBlock s per host, sum of durations (median; 2 at a time per host, a queued range waits in the pool) |',
            '|---|---:|---|---:|---|---|',
            scaleRow('one host, CPU 0', scale.one),
            scaleRow('one host, CPU 0, `PARALLEL_RANGES=1` (sequential)', scale.sequential),
            scaleRow('two hosts, CPU 0 + CPU 1', scale.two),
            '',
            ...(scale.failures.length > 0
                ? [`**${scale.failures.length} run(s) failed** and are not in the table: ${scale.failures.map((f) => `"${f}"`).join('; ')}.`, '']
                : []),
            `One instance fanned out against the sequential walk, same host and chain: ${fmt(median(scale.sequential.map((r) => r.seconds)), 1)} s sequential, ` +
                `${fmt(one, 1)} s with ${SCALE_PARALLEL} ranges in flight: the fanned-out run takes **${fmt(one / median(scale.sequential.map((r) => r.seconds)))}x** the sequential time ` +
                '(no slower within noise is about 1.1x or less on this machine).',
            '',
            result(`two pinned hosts / one, same chain on the real extension: **${fmt(ratio)}x** (target at least ${TARGET_RATIO}x: ${met(ratio >= TARGET_RATIO)})${scale.failures.length > 0 ? `; ${scale.failures.length} run(s) failed` : ''}.`),
            ''
        );
    }

    // 2. Cost per range.
    lines.push(
        '### Cost of a range',
        '',
        `A chain of ranges that hold (almost) no work: block 0 at difficulty ${input.dispatchChain.difficulty}, \`RANGE_SIZE=${DISPATCH_RANGE}\`, so the ` +
            `search walks ${rows[0]?.ranges ?? '?'} ranges to the hit and each costs its dispatch to answer; the figure is \`elapsed_ms\` / ranges ` +
            `(median of ${input.dispatchRounds} runs per host, hosts taking turns, after a warm-up run), one host per backend and \`PARALLEL_RANGES\`, unpinned. ` +
            `Round trip = per range × P, the time one range takes from its dispatch to its answer when P are in flight (equal to per range when P = 1). ` +
            `At the widest window a chain of ${LONG_DISPATCH_CHAIN.blocks} blocks at difficulty ${LONG_DISPATCH_CHAIN.difficulty} (291 ranges) runs too, in the same turn: a longer history to replay in every episode.`,
        '',
        '| backend | PARALLEL_RANGES | recorded in the input | per range (median) | runs | round trip | per range, 291-range chain (runs) |',
        '|---|---:|---|---:|---|---:|---|'
    );
    for (const row of rows) {
        const value = median(row.perRangeMs);
        const long = row.long && row.long.perRangeMs.length > 0 ? `${ms(median(row.long.perRangeMs))} (${row.long.perRangeMs.map((v) => fmt(v, 0)).join(', ')})` : '';
        lines.push(
            `| ${BACKEND_LABEL[row.backend]} | ${row.parallel} | ${row.recorded} | **${ms(value)}** | ${row.perRangeMs.map((v) => fmt(v, 0)).join(', ')} | ${ms(value * row.parallel)} | ${long} |`
        );
    }
    if (input.skipped !== false) lines.push(`| ${BACKEND_LABEL.extension} | | ${input.skipped} | | | | |`);
    lines.push(
        '',
        result(
            `cost of a range, sequential: **${ms(perRange('ts', 1))}** on the TypeScript engine` +
                (rows.some((r) => r.backend === 'extension') ? `, **${ms(perRange('extension', 1))}** on the real extension` : `; the real extension: ${input.skipped}`) +
                ` (with ${Math.max(...rows.map((r) => r.parallel))} in flight: ${rows
                    .filter((r) => r.parallel === Math.max(...rows.map((x) => x.parallel)))
                    .map((r) => `${ms(median(r.perRangeMs))} ${r.backend === 'ts' ? 'TypeScript' : 'extension'}`)
                    .join(', ')}; no target).`
        ),
        ''
    );

    // 3. The model.
    lines.push(...modelSection(input, costs, ratio));
    return lines.join('\n');
}

function scaleRow(label: string, runs: ScaleRun[]): string {
    const perHost = runs.map((r) => r.tallies.map((t) => t.executions).join(' + ')).join('; ');
    const busy = runs[0]?.tallies.map((_, k) => fmt(median(runs.map((r) => (r.tallies[k] as ActivityTally).busyMs / 1000)), 1)).join(' + ') ?? '';
    return `| ${label} | **${s(median(runs.map((r) => r.seconds)))}** | ${runs.map((r) => fmt(r.seconds, 1)).join(', ')} | ${s(median(runs.map((r) => r.wallSeconds)))} | ${perHost} | ${busy} |`;
}

/** 4 blocks at difficulty 32: MAX_WORK's 2^34 expected attempts. */
const LONG_CHAIN = { blocks: 4, mean: 2 ** 32 } as const;
/** 4 blocks at DEFAULT_DIFFICULTY 27: a default run. */
const DEFAULT_CHAIN = { blocks: 4, mean: 2 ** 27 } as const;
const expected = (chain: { blocks: number; mean: number }, m: ModelParameters) => modelExpectedRun(chain.blocks, chain.mean, m);
/** The ranges' sizes the defaults choose among. */
const SIZES = [20, 21, 22, 23, 24, 25, 26, 27].map((e) => 2 ** e);
const WINDOWS = [1, 2, 3, 4, 6, 8, 16];

/** What a range costs on the model's backend, from the trivial chains (see scaleModel.ts). */
interface Costs {
    backend: Backend;
    /** A range's round trip with `parallel` in flight at the start of a run, in seconds. */
    start(parallel: number): number;
    /** Seconds the round trip grows by per range already in the history. */
    growth: number;
}

/**
 * The round trip from the 55-range chains: per range × P (P in flight), less the growth over its first 55 ranges; the
 * growth from the 291-range chain at the widest window: the mean per range rises by growth × ranges / 2 / P.
 */
function costsOf(rows: readonly DispatchRow[]): Costs {
    const backend: Backend = rows.some((r) => r.backend === 'extension') ? 'extension' : 'ts';
    const own = rows.filter((r) => r.backend === backend);
    const wide = own.find((r) => r.long !== undefined && r.long.perRangeMs.length > 0);
    const growth = wide?.long
        ? Math.max(0, (2 * wide.parallel * (median(wide.long.perRangeMs) - median(wide.perRangeMs))) / 1000 / (wide.long.ranges - wide.ranges))
        : 0;
    return {
        backend,
        growth,
        start: (parallel) => {
            const nearest = own.reduce((a, b) => (Math.abs(b.parallel - parallel) < Math.abs(a.parallel - parallel) ? b : a));
            return Math.max(0, (median(nearest.perRangeMs) * nearest.parallel) / 1000 - (growth * nearest.ranges) / 2);
        },
    };
}

interface Defaults {
    rangeSize: number;
    parallel: number;
    lines: string[];
}

function modelSection(input: SectionInput, costs: Costs, measuredRatio: number): string[] {
    const { scale } = input;
    const rate = scale ? median(scale.rates.core0) : 4.25e6;
    const rateSource = scale ? 'the search pool pinned to CPU 0, measured above' : 'BENCHMARKS.md "Mining", one thread of the kernel; not measured in this run';
    const params = (cores: number, parallel: number, rangeSize: number, free = false): ModelParameters => ({
        rate,
        rangeSize,
        parallel,
        cores,
        roundTrip: free ? 0 : costs.start(parallel),
        growth: free ? 0 : costs.growth,
    });
    const defaults = chooseDefaults(rate, costs);
    const lines = [
        '### A model of wall time for N instances',
        '',
        'Source: `bench/scaleModel.ts`. A run is simulated block by block as MineChain runs it: block *b* needs *k_b* = ⌊nonce_b / R⌋ + 1 ranges; ' +
            "a block's first range goes alone (MineChain's slow start), range *i* ≥ 1 is dispatched when every range up to max(0, *i* − P) has answered (the sliding window of P), can start a round trip *d_P* " +
            'later (measured above: per range × P), takes R / rate on the first free core of the N·c (lowest range first, as the search pool ' +
            "serves), the hit's range only up to the hit; the block ends when the hit's range and all below it have answered. Two limits " +
            'follow. While N·c < P the cores are the bound: T ≈ W / (N·c·rate) plus up to (1 − 1/(N·c))·R/rate per block (the last ' +
            "ranges of a block leave cores idle); the window keeps the next ranges queued behind the running ones, which hides d_P. Once " +
            'N·c ≥ P the window is: each of the P slots spends R/rate + d_P per range, T ≈ Σ_b k_b·(R/rate + d_P) / P, so **one workflow ' +
            'never uses more than P cores: PARALLEL_RANGES (at most 16) is the per-workflow bound on its scale-out**, and instances beyond ' +
            'P / c serve other workflows, not this one. Waste (ranges above a hit, stopped once it is accepted) costs CPU, not wall time: ' +
            'at most P − 1 ranges per block. Chains given by their difficulty (every row below but the measured chain\'s) are expected runs: ' +
            'each block at the 16 midpoint quantiles of the exponential distribution of its nonce (mean 2^difficulty), averaged.',
        '',
        `Inputs: rate ${fmt(rate / 1e6)} MH/s per core (${rateSource}); d_P from the ${BACKEND_LABEL[costs.backend]} rows above ` +
            `(${[1, 4, 16].map((p) => `d_${p} = ${ms(costs.start(p) * 1000)}`).join(', ')} at the start of a run; P = 64 takes d_16, not measured), growing by ` +
            `${fmt(costs.growth * 1e6, 0)} µs per range already in the history (from the 291-range chain; every episode replays the history, so the ` +
            'model adds it to each round trip).',
        '',
    ];
    if (scale && scale.one.length > 0 && scale.two.length > 0) {
        // Each run against the model at the rate probed just before it.
        const check = (runs: ScaleRun[], cores: number) =>
            runs.map((r) => ({ model: modelRun(scale.attempts, { ...params(cores, SCALE_PARALLEL, scale.rangeSize), rate: r.rate }).seconds, measured: r.seconds }));
        const one = check(scale.one, 1);
        const two = check(scale.two, 2);
        const row = (label: string, list: Array<{ model: number; measured: number }>) =>
            `| ${label} | ${s(median(list.map((x) => x.model)))} | ${s(median(list.map((x) => x.measured)))} | ${list.map((x) => fmt(x.model / x.measured)).join(', ')} | **${fmt(median(list.map((x) => x.model / x.measured)))}** |`;
        const oneRatio = median(one.map((x) => x.model / x.measured));
        const twoRatio = median(two.map((x) => x.model / x.measured));
        lines.push(
            '| check against the measured runs (each at the rate probed before it) | model (median) | measured (median) | model / measured, each run | median |',
            '|---|---:|---:|---|---:|',
            row(`N = 1 (1 core), P = ${SCALE_PARALLEL}, R = ${pow2(scale.rangeSize)}, the chain's own nonces`, one),
            row('N = 2 (1 core each; the mean rate of CPU 0 and 1), same', two),
            `| ratio N = 2 / N = 1 | ${fmt(median(one.map((x) => x.model)) / median(two.map((x) => x.model)))}x | ${fmt(measuredRatio)}x | | |`,
            '',
            result(`model / measured: **${fmt(oneRatio)}** at N = 1, **${fmt(twoRatio)}** at N = 2 (no target).`),
            ''
        );
    }
    const cases: Array<[n: number, parallel: number]> = [
        [1, 4],
        [2, 4],
        [4, 4],
        [16, 16],
        [64, 16],
        [64, 64],
    ];
    const R = defaults.rangeSize;
    const longOne = expected(LONG_CHAIN, params(1, 4, R));
    lines.push(
        `On Azure: Flex Consumption instances of 2048 MB (1 core; 4096 MB have 2: ${FLEX_SOURCE}) at the one-core rate measured here, \`RANGE_SIZE\` ` +
            `${pow2(R)} (chosen under Defaults below). The scale controller gives one workflow ceil(P / slots) instances, its ranges in ` +
            `flight over the activity slots per instance (${SLOTS_2048} on a 2048 MB instance, the deployed host.json's maxConcurrentActivityFunctions): ` +
            'a row with more instances than that is reached only by several workflows at once, and is marked so. The Consumption SKU ' +
            `of the Durable Task Scheduler that infra/app/scheduler.bicep deploys dispatches up to 500 actions per second (${DTS_SOURCE}), no bound ` +
            `for one workflow: P = 16 ranges of ${fmt(R / rate, 1)} s ask for about ${fmt((16 / (R / rate)) * 3, 1)} actions/s (a range is scheduled, ` +
            'its result processed, and its refill timer completed: about 3). What it does not publish is the latency of one round trip, which is ' +
            'what a workflow feels; the table takes d_P as measured here on the Azure Storage provider (on Azurite) and, as the bound, d = 0.',
        '',
        `| instances N (1 core each) | PARALLEL_RANGES | the measured chain${scale ? ` (${scale.chain.blocks} blocks, difficulty ${scale.chain.difficulty})` : ''} | 4 blocks at difficulty 32 (2^34 expected attempts) | same, d = 0 | speed-up (2^34) | waste, core-s (2^34) |`,
        '|---:|---:|---:|---:|---:|---:|---:|'
    );
    const benchAttempts = scale?.attempts ?? [];
    for (const [n, parallel] of cases) {
        const long = expected(LONG_CHAIN, params(n, parallel, R));
        const bound = expected(LONG_CHAIN, params(n, parallel, R, true));
        const shortRun = benchAttempts.length > 0 ? s(modelRun(benchAttempts, params(n, parallel, R)).seconds) : '(not run)';
        const reach = Math.ceil(parallel / SLOTS_2048);
        const several = n > reach ? ` (several workflows: one reaches ${reach})` : '';
        lines.push(
            `| ${n}${several} | ${parallel}${parallel > 16 ? " (above the setting's 16)" : ''} | ${shortRun} | ${s(long.seconds)} | ${s(bound.seconds)} | ${fmt(longOne.seconds / long.seconds, 1)}x | ${fmt(long.wastedCoreSeconds, 0)} |`
        );
    }
    lines.push('', ...defaults.lines, '');
    return lines;
}

/**
 * RANGE_SIZE and PARALLEL_RANGES from the model and the measured costs, over two cases that pull apart: the
 * default chain on one 2-core instance (short blocks: a long range leaves a core idle at each block's end)
 * and the 2^34 chain on 16 one-core instances with the window at 16 (every range pays its round trip).
 */
function chooseDefaults(rate: number, costs: Costs): Defaults {
    const parameters = (rangeSize: number, parallel: number, cores: number): ModelParameters => ({
        rate,
        rangeSize,
        parallel,
        cores,
        roundTrip: costs.start(parallel),
        growth: costs.growth,
    });
    const model = (chain: { blocks: number; mean: number }, rangeSize: number, parallel: number, cores: number) => expected(chain, parameters(rangeSize, parallel, cores)).seconds;
    const small = SIZES.map((size) => model(DEFAULT_CHAIN, size, 4, 2));
    const wide = SIZES.map((size) => model(LONG_CHAIN, size, 16, 16));
    // Each size's worst slowdown against the best size of either case; the smallest worst wins, the larger size on a tie.
    const regret = SIZES.map((_, k) => Math.max((small[k] as number) / Math.min(...small), (wide[k] as number) / Math.min(...wide)));
    const slowCore = rate / 4;
    const allowed = SIZES.filter((size) => size / slowCore <= FUNCTION_TIMEOUT_S / 10);
    const bestRegret = Math.min(...allowed.map((size) => regret[SIZES.indexOf(size)] as number));
    // The inputs move by ±20% between runs on this machine: within 5% of the best, the larger range wins (half the
    // ranges: half the scheduler actions, which the Durable Task Scheduler bills, and half the history each episode replays).
    const rangeSize = [...allowed].reverse().find((size) => (regret[SIZES.indexOf(size)] as number) <= bestRegret * 1.05) ?? 2 ** 22;
    const lines = [
        '### Defaults',
        '',
        "RANGE_SIZE: a range must be long against its round trip (once the window is full, each range costs its slot d_P) and short against " +
            `\`functionTimeout\` (${FUNCTION_TIMEOUT_S} s) and what a crash loses (the ranges in flight, at most P × R/rate core-seconds, done again by a ` +
            'survivor), and at the end of each block a long range leaves the other cores idle. The model in two cases that pull apart: the default chain ' +
            '(4 blocks at difficulty 27, expected) on one 2-core instance with P = 4, and the 2^34 chain on 16 one-core ' +
            'instances with P = 16; "worst" is the larger of the two slowdowns against the best size of each case.',
        '',
        '| RANGE_SIZE | one range, one core | on a core at a quarter of the rate | round trip / range (P = 16) | default chain, 1 × 2 cores | 2^34 chain, 16 × 1 core | worst | a crash loses at most (P = 16) |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    SIZES.forEach((size, k) => {
        const t = size / rate;
        lines.push(
            `| ${pow2(size)}${size === rangeSize ? ' (**chosen**)' : ''} | ${s(t)} | ${s(size / slowCore)}${allowed.includes(size) ? '' : ' (too long)'} | ` +
                `${fmt((costs.start(16) / t) * 100, 1)}% | ${s(small[k] as number)} | ${s(wide[k] as number)} | ${fmt(regret[k] as number, 3)} | ${fmt(16 * t, 0)} core-s |`
        );
    });
    // PARALLEL_RANGES: the smallest window that keeps one 2-core instance within 2% of a window of 16 on the default chain.
    const oneInstance = WINDOWS.map((p) => model(DEFAULT_CHAIN, rangeSize, p, 2));
    const best = Math.min(...oneInstance);
    const parallel = WINDOWS.find((_, k) => (oneInstance[k] as number) <= best * 1.02) ?? 16;
    const waste = WINDOWS.map((p) => expected(DEFAULT_CHAIN, parameters(rangeSize, p, 2)).wastedCoreSeconds);
    lines.push(
        '',
        `By that rule (the smallest worst slowdown, or the largest size within 5% of it, since the inputs move by ±20% between runs here and ` +
            `a larger range halves the scheduler actions, which the Durable Task Scheduler bills, and the history every episode replays; at most ${FUNCTION_TIMEOUT_S / 10} s on a core at a quarter of the rate, ` +
            `a tenth of \`functionTimeout\`): RANGE_SIZE **${pow2(rangeSize)}** (${rangeSize.toLocaleString('en-US')} nonces, ${s(rangeSize / rate)} of one core here).`,
        '',
        `PARALLEL_RANGES: the default chain at RANGE_SIZE ${pow2(rangeSize)} on one 2-core instance with P = ${WINDOWS.join(', ')}: ` +
            `${oneInstance.map((t) => s(t)).join(', ')} (waste ${waste.map((w) => fmt(w, 1)).join(', ')} core-s); the smallest P within 2% of the best is ` +
            `**${parallel}**: the window hides the round trip once each core has a range queued behind its running one (P = ${WINDOWS.filter((_, k) => (oneInstance[k] as number) <= best * 1.02).join(', ')} are all within 2%). Above that, P buys only ` +
            "scale-out: it is the most cores one workflow takes whatever the instance count, so it is also each workflow's share of the app's " +
            'instances (a tenant with MAX_ACTIVE_WORKFLOWS running takes at most MAX_ACTIVE_WORKFLOWS × P cores).',
        '',
        result(`defaults from the model and the measured costs: RANGE_SIZE **${pow2(rangeSize)}**; PARALLEL_RANGES from **${parallel}** up keeps a 2-core instance busy (above that it is the per-workflow bound on scale-out).`)
    );
    return { rangeSize, parallel, lines };
}

runIfMain(module, run);
