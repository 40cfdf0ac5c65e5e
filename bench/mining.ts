/**
 * Mining: the kernel's hash rate against OpenSSL on one core, the worker pool on every core against
 * one thread, and the default chain mined for real, whose attempts the DEFAULT_DIFFICULTY rule reads.
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
import { type BenchOptions, load1, optionsFromArgv, printSection } from './common';
import type { ChainRun, MiningFigures } from './figures/mining';
import { PROBE_MESSAGE_BYTES } from './kernelProbe';
import { RECORDED_ATTEMPTS } from './recordedAttempts';
import { renderMining } from './report/mining';

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

export async function measureMining(opts: BenchOptions, maxChainDifficulty = opts.smoke ? 20 : opts.quick ? 24 : 27): Promise<MiningFigures> {
    const config = parseConfig({ TASKHUB_NAME: 'bench' });
    const threads = availableParallelism();
    const rounds = opts.smoke ? 1 : opts.quick ? 2 : 3;
    const secondsEach = opts.quick ? 1 : 2;
    const loadBefore = load1();

    // 1. Kernel against OpenSSL, interleaved. Without openssl the kernels are still measured, with no reference.
    const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
    const kernel = { openssl: [] as number[], wasm: [] as number[], crypto: [] as number[], plain: [] as number[] };
    for (let round = 0; round < rounds; round++) {
        if (hasOpenssl) kernel.openssl.push(opensslRate(PROBE_MESSAGE_BYTES, secondsEach));
        kernel.wasm.push(probeRate('wasm', secondsEach));
        kernel.crypto.push(probeRate('crypto', secondsEach));
        if (round === 0) kernel.plain.push(probeRate('plain', secondsEach));
    }

    // 2. The pool: one thread against one per CPU, alternating.
    // OpenSSL on every CPU against OpenSSL on one is the machine's own scaling, for reference.
    const pool = { one: [] as number[], all: [] as number[], opensslAll: [] as number[] };
    for (let round = 0; round < rounds; round++) {
        pool.one.push(await poolRate(1, secondsEach, 1e9 * (round + 1)));
        pool.all.push(await poolRate(threads, secondsEach, 1e9 * (round + 1) + 5e8));
        if (hasOpenssl) pool.opensslAll.push(opensslMultiRate(PROBE_MESSAGE_BYTES, secondsEach, threads));
    }

    // 3. The default chain, mined for real.
    const searchPool = new SearchPool();
    const chains: ChainRun[] = [];
    try {
        await mineChain(searchPool, 16, 2);
        for (let d = 18; d <= maxChainDifficulty; d++) chains.push({ difficulty: d, ...(await mineChain(searchPool, d, config.chainLength)) });
    } finally {
        await searchPool.close();
    }
    const mismatches = chains.filter((c) => RECORDED_ATTEMPTS[c.difficulty] !== undefined && RECORDED_ATTEMPTS[c.difficulty] !== c.attempts);
    if (mismatches.length > 0) throw new Error(`the default chain differs from the recorded one at ${mismatches.map((c) => c.difficulty).join(', ')}`);

    return {
        loadBefore,
        loadAfter: load1(),
        rounds,
        secondsEach,
        pinned: pinned('true', [])[2],
        messageBytes: PROBE_MESSAGE_BYTES,
        threads,
        hasOpenssl,
        kernel,
        pool,
        chainLength: config.chainLength,
        maxChainDifficulty,
        chains,
        config: { defaultDifficulty: config.defaultDifficulty, waitBudgetSeconds: config.waitBudgetSeconds, pollAfterSeconds: config.pollAfterSeconds },
    };
}

if (require.main === module) {
    const { values } = parseArgs({ options: { 'max-chain-difficulty': { type: 'string' } }, strict: false });
    const max = values['max-chain-difficulty'];
    printSection(measureMining(optionsFromArgv(), typeof max === 'string' ? Number(max) : undefined).then(renderMining));
}
