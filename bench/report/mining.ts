import type { MiningFigures } from '../figures/mining';
import { checkDefaultDifficulty, MAX_OVERRUN_SECONDS, runsOnTwoCores } from '../rules/defaultDifficulty';
import { upperMedian } from '../stats';
import { bold, DEFAULTS_DOC, fmt, isFigure, met, mhs, ratio, result, times, verdict } from './format';

const KERNEL_TARGET = 0.5;
/** Near-linear: the pool on every thread at least this share of one thread times the threads. */
const SCALING_SHARE = 0.85;

/** The "Mining" section. */
export function renderMining(f: MiningFigures): string {
    const { threads } = f;
    const openssl = upperMedian(f.kernel.openssl);
    const wasm = upperMedian(f.kernel.wasm);
    const cryptoKernel = upperMedian(f.kernel.crypto);
    const plainRate = upperMedian(f.kernel.plain);
    const kernelRatio = ratio(wasm, openssl);
    const one = upperMedian(f.pool.one);
    const all = upperMedian(f.pool.all);
    const opensslAll = upperMedian(f.pool.opensslAll);
    const scaling = ratio(all, one);
    const opensslScaling = ratio(opensslAll, openssl);
    const noOpenssl = 'not measured: openssl is not installed';
    // The chain's rate over the runs of 1 s or more (all runs when none is that long).
    const long = f.chains.filter((c) => c.seconds >= 1);
    const measured = long.length > 0 ? long : f.chains;
    const chainRate = ratio(
        measured.reduce((sum, c) => sum + c.attempts, 0),
        measured.reduce((sum, c) => sum + c.seconds, 0)
    );
    const linear = SCALING_SHARE * threads;

    const lines = [
        '## Mining',
        '',
        `**How measured.** Source: \`bench/mining.ts\`, \`bench/kernelProbe.ts\`. Load average ${fmt(f.loadBefore, 1)} at the start. ` +
            `Kernel: ${f.rounds} interleaved rounds of ${f.secondsEach} s each, every contender a separate process ` +
            `${f.pinned ? 'pinned to CPU 0 with `taskset`' : 'not pinned (no taskset)'}, on ` +
            `${f.messageBytes}-byte messages (block 1: a 64-hex previous hash and 9-digit nonces); medians; hashes per ` +
            "second of the contender's own CPU time, as `openssl speed` divides by CPU time unless `-elapsed`, so a core " +
            'shared with other work still gives the rate of a dedicated one. ' +
            `Pool: the SearchPool of the MineBlock activity, ${f.rounds} interleaved rounds per size and of \`openssl speed -multi\`, ` +
            'all at nice 0 (the app runs its mining threads at nice 10, which only matters when something else wants the CPU); ' +
            "the default chain is mined with the app's settings.",
        '',
        '| measurement | rate | ratio |',
        '|---|---:|---:|',
        `| \`openssl speed -evp sha256 -bytes ${f.messageBytes}\`, one core | ${f.hasOpenssl ? mhs(openssl) : 'openssl not installed'} | 1 |`,
        `| **WebAssembly SIMD kernel** (midstate + one compression, 4 lanes), one thread | **${mhs(wasm)}** | ${isFigure(kernelRatio) ? `**${times(kernelRatio)}** OpenSSL` : 'not measured'} |`,
        `| node:crypto kernel (\`crypto.hash\`, digits incremented in place), one thread | ${mhs(cryptoKernel)} | ${ratioCell(ratio(cryptoKernel, openssl))} |`,
        `| plain rule (\`createHash().update(text).digest()\`), one thread | ${mhs(plainRate)} | ${ratioCell(ratio(plainRate, openssl))} |`,
        `| pool, 1 worker thread | ${mhs(one)} | 1 |`,
        `| pool, ${threads} worker threads | ${mhs(all)} | ${times(scaling)} (${fmt(isFigure(scaling) ? (100 * scaling) / threads : undefined, 0)}% of linear) |`,
        `| reference: \`openssl speed -multi ${threads}\` against one pinned core | ${mhs(opensslAll, f.hasOpenssl ? undefined : 'openssl not installed')} | ${ratioCell(opensslScaling)} |`,
        `| pool mining the default chain (attempts / wall time, runs of 1 s or more) | ${bold(mhs(chainRate), chainRate)} | |`,
        '',
        result(
            `kernel, one thread / OpenSSL, one core: ${bold(times(kernelRatio, 2, f.hasOpenssl ? undefined : noOpenssl), kernelRatio)} ` +
                `(target at least ${KERNEL_TARGET}x: ${met(verdict(kernelRatio, (r) => r >= KERNEL_TARGET))}; stretch, above 1x: ${met(verdict(kernelRatio, (r) => r > 1))}).`
        ),
        result(
            `pool on ${threads} threads / one thread: ${bold(times(scaling), scaling)}, ` +
                (isFigure(opensslScaling) ? `against ${times(opensslScaling)} for OpenSSL on the same cores ` : `OpenSSL on the same cores ${f.hasOpenssl ? 'not measured' : noOpenssl} `) +
                `(near-linear, at least ${fmt(linear, 1)}x: ${met(verdict(scaling, (v) => v >= linear))}${scalingNote(scaling, opensslScaling, linear)}).`
        ),
        '',
        'Every hit of the kernel is confirmed with node:crypto, and the parallel search still returns ' +
            'the smallest nonce (a hit in a chunk is accepted only once every chunk below it has answered); the default chain ' +
            'below matched the recorded attempts at every difficulty mined.',
        '',
        'Why the kernel passes OpenSSL: `openssl speed` hashes the whole message for every call (two compressions, with ' +
            "the CPU's SHA instructions where it has them, plus the EVP call overhead), while the kernel keeps the state after " +
            "the message's first 64 bytes, which never change within a block, and runs one compression per nonce, for four " +
            'nonces at a time in the i32x4 lanes of WebAssembly SIMD (`src/jobs/mining/sha256Wasm.ts`, generated from TypeScript at ' +
            'load; no binary in the repository). The last two decimal digits vary inside the kernel; everything else is set ' +
            'once per 100 nonces. Scaling: the pool is compared with OpenSSL on the same cores; where OpenSSL itself gains ' +
            `little from ${threads} processes, the cores are shared (vCPUs of a busy host), not the pool.`,
        '',
        ...defaultChain(f, wasm, chainRate),
        '',
        `Load average ${fmt(f.loadAfter, 1)} at the end.`,
    ];
    return lines.join('\n');
}

const ratioCell = (value: number | undefined) => times(value);

function scalingNote(scaling: number | undefined, opensslScaling: number | undefined, linear: number): string {
    if (!isFigure(scaling) || scaling >= linear) return '';
    if (!isFigure(opensslScaling)) return '; OpenSSL not measured for comparison';
    return opensslScaling < linear
        ? '; the shared vCPUs are the limit: OpenSSL scales no better'
        : `; OpenSSL reached ${fmt(opensslScaling / scaling, 2)}x the pool's scaling in the same run`;
}

/** The default chain's table and DEFAULT_DIFFICULTY against its rule, with this run's kernel rate. */
function defaultChain(f: MiningFigures, wasm: number | undefined, chainRate: number | undefined): string[] {
    const { config, chainLength } = f;
    const budget = config.waitBudgetSeconds;
    if (!isFigure(wasm)) return ['The default chain on two cores: not measured (no kernel rate in this run).'];
    const candidates = runsOnTwoCores(wasm);
    const polls = (seconds: number) => Math.max(0, Math.ceil((seconds - budget) / config.pollAfterSeconds));
    const lines = [
        `The default chain (${chainLength} blocks from GENESIS), mined here up to difficulty ${f.maxChainDifficulty} ` +
            '(attempts above it recorded from earlier runs), and its expected length on two dedicated cores at the one-thread ' +
            `kernel rate measured above (2 x ${mhs(wasm)} = ${mhs(2 * wasm)}):`,
        '',
        '| difficulty | total_attempts | attempts / expected | s here | s on 2 cores | × budget on 2 cores |',
        '|---:|---:|---:|---:|---:|---:|',
    ];
    for (const c of candidates) {
        const luck = c.attempts / (chainLength * 2 ** c.difficulty);
        const mined = f.chains.find((run) => run.difficulty === c.difficulty);
        const here = mined !== undefined ? fmt(mined.seconds, 1) : isFigure(chainRate) ? `(${fmt(c.attempts / chainRate, 0)} expected)` : '(not mined)';
        lines.push(`| ${c.difficulty} | ${c.attempts.toLocaleString('en-US')} | ${fmt(luck)} | ${here} | ${fmt(c.seconds, 1)} | ${fmt(c.seconds / budget, 1)} |`);
    }
    const d = config.defaultDifficulty;
    const verdict = checkDefaultDifficulty(d, candidates, budget);
    const own = verdict.run;
    const neighbours = candidates.filter((c) => Math.abs(c.difficulty - d) === 1);
    const why = verdict.met
        ? ''
        : own === undefined
          ? ` (no recorded attempts at ${d})`
          : !verdict.inWindow
            ? ` (its run ${own.seconds <= budget ? 'does not outlast the budget' : `ends more than ${MAX_OVERRUN_SECONDS} s after the budget`})`
            : ` (${verdict.nearer?.difficulty} is nearer two budgets: ${fmt(verdict.nearer?.seconds, 0)} s)`;
    lines.push(
        '',
        `**DEFAULT_DIFFICULTY.** The default, ${d} (\`src/config.ts\`), is a decision with its rule in ${DEFAULTS_DOC}, held by ` +
            '`test/infra/defaultDifficulty.test.ts` against the figures above as BENCHMARKS.md records them; this run does not change it. ' +
            `The rule (\`bench/rules/defaultDifficulty.ts\`): a default run on two cores must outlast the ${budget} s ` +
            `wait budget, so that the demo shows the poll path, but not by minutes: it must end at most ${MAX_OVERRUN_SECONDS} s ` +
            `after the budget (${budget + MAX_OVERRUN_SECONDS} s in all, at most ${polls(budget + MAX_OVERRUN_SECONDS)} polls ` +
            `${config.pollAfterSeconds} s apart). Among the difficulties whose run outlasts the budget, the default is the one ` +
            `nearest two budgets (${2 * budget} s) by ratio, the middle of that window. The chain is fixed and its attempts step ` +
            'unevenly (see attempts / expected), so the rule reads the recorded attempts, not 2^difficulty. ' +
            (own === undefined
                ? `With this run's kernel rate: ${d} has no recorded attempts`
                : `With this run's kernel rate: ${d} takes ${(own.attempts / 1e6).toFixed(1)} M attempts, ${fmt(own.seconds, 0)} s on two cores ` +
                  `(${fmt(own.seconds / budget, 1)}x the budget, then about ${polls(own.seconds)} polls)`) +
            neighbours.map((c) => `; ${c.difficulty} would take ${fmt(c.seconds, 0)} s (${fmt(c.seconds / budget, 1)}x)`).join('') +
            `; the default still meets the rule: ${met(verdict.met)}${why}.`,
        '',
        result(
            own === undefined
                ? `DEFAULT_DIFFICULTY ${d}: no recorded attempts at ${d}, so its rule (${DEFAULTS_DOC}) cannot be checked: ${met(false)}.`
                : `DEFAULT_DIFFICULTY ${d}: a default run of **${fmt(own.seconds, 0)} s**, **${fmt(own.seconds / budget, 1)}x** the budget on two cores ` +
                      `(target: over the budget, at most ${MAX_OVERRUN_SECONDS} s over: ${met(verdict.inWindow)}; ` +
                      `the default still meets its rule, ${DEFAULTS_DOC}: ${met(verdict.met)}).`
        )
    );
    return lines;
}
