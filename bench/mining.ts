/**
 * Mining: the kernel's hash rate against OpenSSL on one core, the worker pool on every core against
 * one thread, and the default chain mined for real, which is what DEFAULT_DIFFICULTY is chosen from.
 *
 *   npm run build && node dist/bench/mining.js [--quick] [--max-chain-difficulty N]
 *
 * 1. Kernel: `openssl speed -evp sha256 -bytes <len>` and this project's kernels, each in its own process
 *    pinned to the same core (taskset), on messages of the same length, in interleaved rounds.
 * 2. Pool: the SearchPool MineBlock uses, with one thread and with one per CPU, over the same nonces.
 * 3. The default chain (CHAIN_LENGTH blocks from GENESIS) mined with the pool at each difficulty. The
 *    chain is deterministic, so its attempts are exact anywhere; the seconds are this machine's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config';
import { GENESIS } from '../src/jobs/mining/hashRule';
import { SearchPool } from '../src/jobs/mining/search';
import { type BenchOptions, fmt, load1, met, mhs, optionsFromArgv, result } from './common';
import { chooseDefaultDifficulty, MAX_OVERRUN_SECONDS, ruleLine } from './difficultyRule';
import { PROBE_MESSAGE_BYTES } from './kernelProbe';
import { RECORDED_ATTEMPTS } from './recordedAttempts';

/** Re-exported for scaleOut.ts and the test that still import it from here. */
export { RECORDED_ATTEMPTS };

const KERNEL_TARGET = 0.5;

function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A command pinned to CPU 0 when taskset exists, so OpenSSL and the kernels share one core. */
function pinned(command: string, args: string[]): [string, string[], boolean] {
    const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
    return hasTaskset ? ['taskset', ['-c', '0', command, ...args], true] : [command, args, false];
}

function opensslRate(bytes: number, seconds: number): number {
    const [cmd, args] = pinned('openssl', ['speed', '-mr', '-evp', 'sha256', '-bytes', String(bytes), '-seconds', String(seconds)]);
    const out = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    // "+F:<n>:sha256:<bytes per second>"
    const perSecond = Number(/^\+F:\d+:sha256:([\d.]+)/m.exec(out)?.[1]);
    if (!Number.isFinite(perSecond)) throw new Error(`cannot read openssl speed output: ${out}`);
    return perSecond / bytes;
}

/** OpenSSL on every CPU at once (`-multi`, unpinned): how far this machine's cores scale at all. */
function opensslMultiRate(bytes: number, seconds: number, processes: number): number {
    const out = execFileSync('openssl', ['speed', '-mr', '-multi', String(processes), '-evp', 'sha256', '-bytes', String(bytes), '-seconds', String(seconds)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    const perSecond = Number(/^\+F:\d+:sha256:([\d.]+)/m.exec(out)?.[1]);
    if (!Number.isFinite(perSecond)) throw new Error(`cannot read openssl speed -multi output: ${out}`);
    return perSecond / bytes;
}

function probeRate(kernel: 'wasm' | 'crypto' | 'plain', seconds: number): number {
    const [cmd, args] = pinned(process.execPath, [join(__dirname, 'kernelProbe.js'), kernel, String(seconds)]);
    const out = execFileSync(cmd, args, { encoding: 'utf8' });
    // Per CPU second, as openssl speed counts (see kernelProbe.ts): the rate of a core of its own.
    const { hashes, cpuSeconds } = JSON.parse(out) as { hashes: number; cpuSeconds: number };
    return hashes / cpuSeconds;
}

async function poolRate(size: number, seconds: number, startAt: number): Promise<number> {
    // Nice 0 here, like OpenSSL's processes: this measures how the search scales, not how it yields.
    const pool = new SearchPool({ size, threadNice: 0 });
    try {
        await pool.searchRange({ index: 1, previousHash: GENESIS, difficulty: 256, start: startAt, end: startAt + 1e6 }); // warm-up
        const span = Math.round(seconds * 1.2e7 * size);
        const started = performance.now();
        await pool.searchRange({ index: 1, previousHash: GENESIS, difficulty: 256, start: startAt + 1e6, end: startAt + 1e6 + span });
        return span / ((performance.now() - started) / 1000);
    } finally {
        await pool.close();
    }
}

async function mineChain(pool: SearchPool, difficulty: number, blocks: number) {
    let previousHash = GENESIS;
    let attempts = 0;
    const started = performance.now();
    for (let index = 0; index < blocks; index++) {
        const { nonce, hash } = await pool.search({ index, previousHash, difficulty });
        attempts += nonce + 1;
        previousHash = hash;
    }
    return { attempts, seconds: (performance.now() - started) / 1000 };
}

export async function run(opts: BenchOptions, maxChainDifficulty = opts.smoke ? 20 : opts.quick ? 24 : 27): Promise<string> {
    const config = parseConfig({ TASKHUB_NAME: 'bench' });
    const threads = availableParallelism();
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 3;
    const seconds = opts.quick ? 1 : 2;
    const loadBefore = load1();
    const pinnedTo = pinned('true', [])[2] ? 'pinned to CPU 0 with `taskset`' : 'not pinned (no taskset)';

    // 1. Kernel against OpenSSL, interleaved. Without openssl the kernels are still measured, with no reference.
    const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
    const rates = { openssl: [] as number[], wasm: [] as number[], crypto: [] as number[], plain: [] as number[] };
    for (let round = 0; round < rounds; round++) {
        if (hasOpenssl) rates.openssl.push(opensslRate(PROBE_MESSAGE_BYTES, seconds));
        rates.wasm.push(probeRate('wasm', seconds));
        rates.crypto.push(probeRate('crypto', seconds));
        if (round === 0) rates.plain.push(probeRate('plain', seconds));
    }
    const openssl = median(rates.openssl);
    const wasm = median(rates.wasm);
    const cryptoKernel = median(rates.crypto);
    const plainRate = median(rates.plain);
    const kernelRatio = wasm / openssl;

    // 2. The pool: one thread against one per CPU, alternating.
    // OpenSSL on every CPU against OpenSSL on one is the machine's own scaling, for reference.
    const one: number[] = [];
    const all: number[] = [];
    const opensslAll: number[] = [];
    for (let round = 0; round < rounds; round++) {
        one.push(await poolRate(1, seconds, 1e9 * (round + 1)));
        all.push(await poolRate(threads, seconds, 1e9 * (round + 1) + 5e8));
        if (hasOpenssl) opensslAll.push(opensslMultiRate(PROBE_MESSAGE_BYTES, seconds, threads));
    }
    const scaling = median(all) / median(one);
    const opensslScaling = median(opensslAll) / openssl;

    // 3. The default chain, mined for real.
    const pool = new SearchPool();
    const chains: Array<{ difficulty: number; attempts: number; seconds: number }> = [];
    try {
        await mineChain(pool, 16, 2);
        for (let d = 18; d <= maxChainDifficulty; d++) chains.push({ difficulty: d, ...(await mineChain(pool, d, config.chainLength)) });
    } finally {
        await pool.close();
    }
    const mismatches = chains.filter((c) => RECORDED_ATTEMPTS[c.difficulty] !== undefined && RECORDED_ATTEMPTS[c.difficulty] !== c.attempts);
    if (mismatches.length > 0) throw new Error(`the default chain differs from the recorded one at ${mismatches.map((c) => c.difficulty).join(', ')}`);
    const long = chains.filter((c) => c.seconds >= 1);
    const measured = long.length > 0 ? long : chains;
    const rate = measured.reduce((s, c) => s + c.attempts, 0) / measured.reduce((s, c) => s + c.seconds, 0);

    // DEFAULT_DIFFICULTY is tuned for a 2-core machine: two dedicated cores, each at the one-thread kernel
    // rate measured above (pinned, so least disturbed by other load). This machine's shared vCPUs scale
    // worse (see the OpenSSL reference), and its chain rate swings with other tenants' load, so neither
    // is used for the choice; both are shown. The rule itself is in bench/difficultyRule.ts.
    const budget = config.waitBudgetSeconds;
    const twoCores = 2 * wasm;
    const candidates = Object.entries(RECORDED_ATTEMPTS).map(([d, attempts]) => ({
        difficulty: Number(d),
        attempts,
        here: chains.find((c) => c.difficulty === Number(d))?.seconds,
        seconds: attempts / twoCores,
    }));
    const { chosen: best, met: inWindow } = chooseDefaultDifficulty(candidates, budget);
    const polls = (seconds: number) => Math.max(0, Math.ceil((seconds - budget) / config.pollAfterSeconds));

    const lines = [
        '## Mining',
        '',
        `**How measured.** Source: \`bench/mining.ts\`, \`bench/kernelProbe.ts\`. Load average ${fmt(loadBefore, 1)} at the start. ` +
            `Kernel: ${rounds} interleaved rounds of ${seconds} s each, every contender a separate process ${pinnedTo}, on ` +
            `${PROBE_MESSAGE_BYTES}-byte messages (block 1: a 64-hex previous hash and 9-digit nonces); medians; hashes per ` +
            "second of the contender's own CPU time, as `openssl speed` divides by CPU time unless `-elapsed`, so a core " +
            'shared with other work still gives the rate of a dedicated one. ' +
            `Pool: the SearchPool of the MineBlock activity, ${rounds} interleaved rounds per size and of \`openssl speed -multi\`, ` +
            'all at nice 0 (the app runs its mining threads at nice 10, which only matters when something else wants the CPU); ' +
            'the default chain is mined with the app\'s settings.',
        '',
        '| measurement | rate | ratio |',
        '|---|---:|---:|',
        `| \`openssl speed -evp sha256 -bytes ${PROBE_MESSAGE_BYTES}\`, one core | ${hasOpenssl ? mhs(openssl) : 'openssl not installed'} | 1 |`,
        `| **WebAssembly SIMD kernel** (midstate + one compression, 4 lanes), one thread | **${mhs(wasm)}** | **${fmt(kernelRatio)}x** OpenSSL |`,
        `| node:crypto kernel (\`crypto.hash\`, digits incremented in place), one thread | ${mhs(cryptoKernel)} | ${fmt(cryptoKernel / openssl)}x |`,
        `| plain rule (\`createHash().update(text).digest()\`), one thread | ${mhs(plainRate)} | ${fmt(plainRate / openssl)}x |`,
        `| pool, 1 worker thread | ${mhs(median(one))} | 1 |`,
        `| pool, ${threads} worker threads | ${mhs(median(all))} | ${fmt(scaling)}x (${fmt((100 * scaling) / threads, 0)}% of linear) |`,
        `| reference: \`openssl speed -multi ${threads}\` against one pinned core | ${mhs(median(opensslAll))} | ${fmt(opensslScaling)}x |`,
        `| pool mining the default chain (attempts / wall time, runs of 1 s or more) | **${mhs(rate)}** | |`,
        '',
        result(
            `kernel, one thread / OpenSSL, one core: **${fmt(kernelRatio)}x** (target at least ${KERNEL_TARGET}x: ` +
                `${met(kernelRatio >= KERNEL_TARGET)}; stretch, above 1x: ${met(kernelRatio > 1)}).`
        ),
        result(
            `pool on ${threads} threads / one thread: **${fmt(scaling)}x**, against ${fmt(opensslScaling)}x for OpenSSL on the same cores ` +
                `(near-linear, at least ${fmt(0.85 * threads, 1)}x: ${met(scaling >= 0.85 * threads)}` +
                (scaling >= 0.85 * threads
                    ? ').'
                    : opensslScaling < 0.85 * threads
                      ? '; the shared vCPUs are the limit: OpenSSL scales no better).'
                      : `; OpenSSL reached ${fmt(opensslScaling / scaling, 2)}x the pool's scaling in the same run).`)
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
        `The default chain (${config.chainLength} blocks from GENESIS), mined here up to difficulty ${maxChainDifficulty} ` +
            `(attempts above it recorded from earlier runs), and its expected length on two dedicated cores at the one-thread ` +
            `kernel rate measured above (2 x ${mhs(wasm)} = ${mhs(twoCores)}):`,
        '',
        '| difficulty | total_attempts | attempts / expected | s here | s on 2 cores | × budget on 2 cores |',
        '|---:|---:|---:|---:|---:|---:|',
    ];
    for (const c of candidates) {
        const luck = c.attempts / (config.chainLength * 2 ** c.difficulty);
        const here = c.here === undefined ? `(${fmt(c.attempts / rate, 0)} expected)` : fmt(c.here, 1);
        lines.push(
            `| ${c.difficulty} | ${c.attempts.toLocaleString('en-US')} | ${fmt(luck)} | ${here} | ${fmt(c.seconds, 1)} | ${fmt(c.seconds / budget, 1)} |`
        );
    }
    const neighbours = candidates.filter((c) => Math.abs(c.difficulty - best.difficulty) === 1);
    lines.push(
        '',
        `**DEFAULT_DIFFICULTY.** The rule (\`bench/difficultyRule.ts\`): a default run on two cores must outlast the ${budget} s ` +
            `wait budget, so that the demo shows the poll path, but not by minutes: it must end at most ${MAX_OVERRUN_SECONDS} s ` +
            `after the budget (${budget + MAX_OVERRUN_SECONDS} s in all, at most ${polls(budget + MAX_OVERRUN_SECONDS)} polls ` +
            `${config.pollAfterSeconds} s apart). Among the difficulties whose run outlasts the budget, the default is the one ` +
            `nearest two budgets (${2 * budget} s) by ratio, the middle of that window. The chain is fixed and its attempts step ` +
            'unevenly (see attempts / expected), so the choice is made on the recorded attempts, not on 2^difficulty. ' +
            `Here it gives **${best.difficulty}**: ${(best.attempts / 1e6).toFixed(1)} M attempts, ${fmt(best.seconds, 0)} s on two cores ` +
            `(${fmt(best.seconds / budget, 1)}x the budget, then about ${polls(best.seconds)} polls)` +
            neighbours.map((c) => `; ${c.difficulty} would take ${fmt(c.seconds, 0)} s (${fmt(c.seconds / budget, 1)}x)`).join('') +
            '.',
        '',
        ruleLine(best.difficulty),
        '',
        result(
            `DEFAULT_DIFFICULTY ${config.defaultDifficulty}, the rule gives ${best.difficulty}: a default run of **${fmt(best.seconds, 0)} s**, ` +
                `**${fmt(best.seconds / budget, 1)}x** the budget on two cores (target: over the budget, at most ${MAX_OVERRUN_SECONDS} s over: ` +
                `${met(inWindow)}; setting and rule agree: ${met(config.defaultDifficulty === best.difficulty)}).`
        )
    );
    lines.push('', `Load average ${fmt(load1(), 1)} at the end.`);
    return lines.join('\n');
}

if (require.main === module) {
    const { values } = parseArgs({ options: { 'max-chain-difficulty': { type: 'string' } }, strict: false });
    const max = values['max-chain-difficulty'];
    const opts = optionsFromArgv();
    run(opts, typeof max === 'string' ? Number(max) : undefined)
        .then((section) => process.stdout.write(section + '\n'))
        .catch((error: unknown) => {
            process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
            process.exitCode = 1;
        });
}
