/**
 * One fanned-out MineChain run on one host of the real extension pinned to one core, against the same run on two
 * hosts of one task hub pinned to a core each, and against the sequential walk (PARALLEL_RANGES 1) on the one core,
 * for Scale-out. The three take turns, round by round, the order alternating.
 */
import { uniqueHubName } from '@mcp-mining/testkit';
import { type BenchApp, startAppOn } from './appHost';
import { sleep } from './common';
import { affinityOfTree, type ActivityTally, reniceTree, tallyMineBlock } from './hostProcesses';
import { mineToEnd, recordedFanOut, type RecordedFanOut, SHORT_BUDGET } from './mineThroughMcp';
import { pinnedPoolRate } from './poolRate';
import { RECORDED_ATTEMPTS } from './recordedAttempts';

/**
 * The one-core run should take about a minute (40 to 90 s): the chain (the default one, 4 blocks from GENESIS, at
 * a difficulty of RECORDED_ATTEMPTS) and the range size (about 1.5 s of one core) are picked from the pool's
 * rate pinned to CPU 0, measured first, because on a shared machine that rate moves several-fold with the
 * load (the mining threads run at nice 10, so any other work on the core comes first).
 */
const SETUP = {
    targetSeconds: 60,
    rangeSeconds: 1.5,
    blocks: 4,
    parallel: 4,
    /** host.json's rule (about 2 activities per core of the instance) for a host of one core. */
    activitiesPerCore: 2,
    /** The pool probe's work: a few seconds of one core. */
    probeNonces: 2 ** 22,
} as const;

export type PinnedSetup = typeof SETUP;

export interface PinnedRun {
    /** Hashes per second per core of the cores it ran on, probed just before. */
    rate: number;
    /** The workflow's `elapsed_ms`, and the client's wall time, in seconds. */
    seconds: number;
    wallSeconds: number;
    /** Per host, the MineBlock executions its log shows for this run. */
    tallies: ActivityTally[];
}

export interface PinnedHostsFigures {
    setup: PinnedSetup;
    chain: { difficulty: number; blocks: number };
    rangeSize: number;
    /** The rate the chain was picked by. */
    firstRate: number;
    /** Threads set to nice 0 per host (one host, the pair's two, the sequential one). */
    reniced: number[];
    one: PinnedRun[];
    /** One host, CPU 0, PARALLEL_RANGES 1: the sequential walk the fanned-out run on one instance must not lose to. */
    sequential: PinnedRun[];
    two: PinnedRun[];
    /** Runs that did not complete, and why. */
    failures: string[];
    /** Every probe's rate per CPU, and the parallelism a pinned process saw. */
    rates: { core0: number[]; core1: number[]; parallelism: number[] };
    /** Cpus_allowed_list of each host's process tree: one host, the pair's first, the pair's second. */
    affinity: string[];
    /** Attempts per block (nonce + 1) of the chain. */
    attempts: number[];
    /** Every run gave the same chain, with the recorded attempts. */
    chainsAgree: boolean;
    recorded: RecordedFanOut;
}

/** The chain and range size for a one-core run of about SETUP.targetSeconds at `rate`. */
function chainFor(rate: number): { difficulty: number; blocks: number; rangeSize: number } {
    const difficulties = Object.keys(RECORDED_ATTEMPTS).map(Number);
    const off = (d: number) => Math.abs(Math.log((RECORDED_ATTEMPTS[d] as number) / rate / SETUP.targetSeconds));
    const difficulty = difficulties.reduce((best, d) => (off(d) < off(best) ? d : best), difficulties[0] as number);
    const rangeSize = 2 ** Math.min(27, Math.max(16, Math.round(Math.log2(rate * SETUP.rangeSeconds))));
    return { difficulty, blocks: SETUP.blocks, rangeSize };
}

/** Measures `rounds` rounds on the extension's hosts, on the Azurite at `connectionString`; `apps` holds the hosts to stop. */
export async function measurePinnedHosts(connectionString: string, rounds: number, apps: BenchApp[]): Promise<PinnedHostsFigures> {
    const firstRate = (await pinnedPoolRate('0', SETUP.probeNonces)).rate;
    const { rangeSize, ...chain } = chainFor(firstRate);
    const env = {
        ...SHORT_BUDGET,
        PARALLEL_RANGES: String(SETUP.parallel),
        RANGE_SIZE: String(rangeSize),
        AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: String(SETUP.activitiesPerCore),
    };
    // Information level: the hosts' "Executed 'MineBlock'" lines count each host's activities.
    const verbose = ['--log-level', 'information'];
    const hubTwo = uniqueHubName('scaletwo');
    const [single, first, walker] = await Promise.all([
        startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: uniqueHubName('scaleone') }, { cpus: '0', args: verbose }),
        startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: hubTwo }, { cpus: '0', args: verbose }),
        startAppOn('extension', connectionString, { ...env, PARALLEL_RANGES: '1', TASKHUB_NAME: uniqueHubName('scaleseq') }, { cpus: '0', args: verbose }),
    ]);
    apps.push(single, first, walker);
    const second = await startAppOn('extension', connectionString, { ...env, TASKHUB_NAME: hubTwo }, { cpus: '1', args: verbose });
    apps.push(second);
    const pair = [first, second];
    const affinity = [single, first, second].map((app) => affinityOfTree(app.host.pid).join(' '));

    // Warm-up: 4 blocks of one range each, so both hosts of the pair likely take some (their pools, the JIT).
    const warm = await mineToEnd([single.mcp], { difficulty: 22, blocks: 4 });
    await mineToEnd([walker.mcp], { difficulty: 22, blocks: 4 });
    await mineToEnd([first.mcp, second.mcp], { difficulty: 22, blocks: 4 });
    const recorded = await recordedFanOut(single, warm.workflowId);
    // The pools' threads exist now (they live as long as the host): from nice 10 to 0, level with the machine's other work.
    const reniced = [single, first, second, walker].map((app) => reniceTree(app.host.pid, 0));

    const figures: PinnedHostsFigures = {
        setup: SETUP,
        chain,
        rangeSize,
        firstRate,
        reniced,
        one: [],
        sequential: [],
        two: [],
        failures: [],
        rates: { core0: [], core1: [], parallelism: [] },
        affinity,
        attempts: [],
        chainsAgree: true,
        recorded,
    };
    let reference: string | undefined;
    const runOn = async (hosts: BenchApp[]): Promise<PinnedRun> => {
        // The rate of the cores the run is about to use, just before it: the model's input for this run.
        const probes = await Promise.all(hosts.map((_, k) => pinnedPoolRate(String(k), SETUP.probeNonces)));
        probes.forEach((probe, k) => {
            (k === 0 ? figures.rates.core0 : figures.rates.core1).push(probe.rate);
            figures.rates.parallelism.push(probe.parallelism);
        });
        const offsets = hosts.map((app) => app.host.stderr.length);
        const mined = await mineToEnd(
            hosts.map((app) => app.mcp),
            chain
        );
        const blocks = JSON.stringify(mined.result.blocks);
        reference ??= blocks;
        if (blocks !== reference || mined.result.total_attempts !== RECORDED_ATTEMPTS[chain.difficulty]) figures.chainsAgree = false;
        figures.attempts = mined.result.blocks.map((block) => block.nonce + 1);
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
    const attempt = async (hosts: BenchApp[], into: PinnedRun[], label: string) => {
        try {
            into.push(await runOn(hosts));
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            figures.failures.push(`${label}: ${message.slice(0, 200)}`);
            process.stderr.write(`scaleOut: a run failed: ${message}\n${hosts.map((app) => app.host.stderr.slice(-4000)).join('\n---\n')}\n`);
        }
    };
    for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so neither always follows the other.
        const steps = [
            () => attempt([single], figures.one, 'one host'),
            () => attempt(pair, figures.two, 'two hosts'),
            () => attempt([walker], figures.sequential, 'one host, sequential'),
        ];
        if (round % 2 === 1) steps.reverse();
        for (const step of steps) await step();
    }
    return figures;
}
