/**
 * Mining benchmark: the figures behind DEFAULT_DIFFICULTY (BENCHMARKS.md, "## Mining").
 *
 *   node dist/bench/mining.js [--min-chain-difficulty N] [--max-chain-difficulty N] [--seconds S]
 *
 * 1. Kernel: one thread, the same nonces, plain `createHash(...).update(text)` against scan.ts's
 *    kernel, interleaved rounds, so the ratio is measured side by side.
 * 2. Threads: every CPU scanning at once against one thread alone (how well this machine scales).
 * 3. Default run: the default chain (CHAIN_LENGTH blocks from GENESIS) mined for real with the
 *    worker pool MineBlock uses, at each difficulty in the range. The chain is deterministic, so its
 *    attempts are exact; the seconds are measured. The pool's effective rate (attempts the search
 *    had to try per second of wall time, which is what decides a run's length) comes from these runs.
 * 4. Expected seconds per block and per default run by difficulty, at that rate.
 */
import { createHash } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseConfig } from '../src/config';
import { GENESIS, meetsDifficulty } from '../src/mining/hashRule';
import { scanRange } from '../src/mining/scan';
import { SearchPool } from '../src/mining/search';

function option(name: string, fallback: number): number {
    const at = process.argv.indexOf(`--${name}`);
    const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
    if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
    return value;
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const rate = (hashes: number, s: number) => `${(hashes / s / 1e6).toFixed(2)} MH/s`;

/** The plain rule, as hashRule.ts writes it, over [start, end); returns how many it hashed. */
function plainScan(index: number, prev: string, difficulty: number, start: number, end: number): number {
    let n = start;
    for (; n < end; n++) {
        if (meetsDifficulty(createHash('sha256').update(`${index}:${prev}:${n}`, 'utf8').digest(), difficulty)) break;
    }
    return n - start;
}

function kernelComparison(roundSeconds: number): { plain: number; fast: number } {
    // An impossible difficulty makes both scan every nonce of the range.
    const range = 400_000;
    let plainHashes = 0;
    let plainTime = 0;
    let fastHashes = 0;
    let fastTime = 0;
    const deadline = Date.now() + roundSeconds * 1000 * 2;
    for (let round = 0; round < 3 || Date.now() < deadline; round++) {
        const start = round * range;
        let t = process.hrtime.bigint();
        plainHashes += plainScan(1, GENESIS, 256, start, start + range);
        plainTime += seconds(t);
        t = process.hrtime.bigint();
        scanRange(1, GENESIS, 256, start, start + range);
        fastHashes += range;
        fastTime += seconds(t);
    }
    return { plain: plainHashes / plainTime, fast: fastHashes / fastTime };
}

async function mineChain(pool: SearchPool, difficulty: number, blocks: number) {
    let previousHash = GENESIS;
    let attempts = 0;
    const start = process.hrtime.bigint();
    for (let index = 0; index < blocks; index++) {
        const { nonce, hash } = await pool.search({ index, previousHash, difficulty });
        attempts += nonce + 1;
        previousHash = hash;
    }
    return { attempts, seconds: seconds(start) };
}

async function main(): Promise<void> {
    const config = parseConfig({ TASKHUB_NAME: 'bench', ...process.env });
    const minChainDifficulty = option('min-chain-difficulty', 18);
    const maxChainDifficulty = option('max-chain-difficulty', 26);
    const roundSeconds = option('seconds', 3);
    const threads = availableParallelism();

    console.log(`Node ${process.version}, ${threads} CPUs (${cpus()[0]?.model ?? 'unknown'}), load average ${loadavg()[0]?.toFixed(2)} at start`);
    console.log(`Default settings: CHAIN_LENGTH=${config.chainLength}, WAIT_BUDGET_SECONDS=${config.waitBudgetSeconds}, DEFAULT_DIFFICULTY=${config.defaultDifficulty}\n`);

    const kernel = kernelComparison(roundSeconds);
    console.log('Kernel, one thread, same nonces:');
    console.log(`  plain createHash(text):  ${rate(kernel.plain, 1)}`);
    console.log(`  scan.ts kernel:          ${rate(kernel.fast, 1)}  (${(kernel.fast / kernel.plain).toFixed(2)}x)\n`);

    const scaling = await threadScaling(threads, roundSeconds);
    console.log(`Raw scan, ${threads} threads at once vs one: ${rate(scaling.many, 1)} vs ${rate(scaling.one, 1)} (${(scaling.many / scaling.one).toFixed(2)}x)\n`);

    const pool = new SearchPool();
    const chains: Array<{ difficulty: number; attempts: number; seconds: number }> = [];
    try {
        // Warm the pool (threads started, code compiled) before measuring.
        await mineChain(pool, 16, 2);
        for (let d = minChainDifficulty; d <= maxChainDifficulty; d++) {
            chains.push({ difficulty: d, ...(await mineChain(pool, d, config.chainLength)) });
        }
    } finally {
        await pool.close();
    }

    // The pool's effective rate over the runs long enough for start-up and the last chunks not to matter.
    const long = chains.filter((c) => c.seconds >= 1);
    const measured = long.length > 0 ? long : chains;
    const poolRate = measured.reduce((sum, c) => sum + c.attempts, 0) / measured.reduce((sum, c) => sum + c.seconds, 0);
    console.log(`Pool (MineBlock's search), ${threads} worker threads, effective rate: ${rate(poolRate, 1)} (${(poolRate / kernel.fast).toFixed(2)}x the one-thread kernel)\n`);

    console.log(`The default chain (${config.chainLength} blocks from GENESIS), mined for real:`);
    console.log('| difficulty | total_attempts | measured s | attempts / expected |');
    console.log('|---:|---:|---:|---:|');
    for (const run of chains) {
        const luck = run.attempts / (config.chainLength * 2 ** run.difficulty);
        console.log(`| ${run.difficulty} | ${run.attempts.toLocaleString('en-US')} | ${run.seconds.toFixed(1)} | ${luck.toFixed(2)} |`);
    }

    console.log(`\nLoad average ${loadavg()[0]?.toFixed(2)} at the end (other processes on the machine slow every figure but the ratios).`);
    console.log(`\nExpected seconds at the pool's rate (2^d attempts per block on average; a run is ${config.chainLength} blocks):`);
    console.log('| difficulty | expected attempts per block | expected s per block | expected s per run |');
    console.log('|---:|---:|---:|---:|');
    for (let d = 18; d <= config.maxDifficulty; d++) {
        const perBlock = 2 ** d / poolRate;
        console.log(`| ${d} | ${(2 ** d).toLocaleString('en-US')} | ${perBlock.toFixed(2)} | ${(perBlock * config.chainLength).toFixed(1)} |`);
    }
}

/** Hashes per second of `threads` threads each scanning its own range at once, against one thread alone. */
async function threadScaling(threads: number, roundSeconds: number): Promise<{ one: number; many: number }> {
    const scanModule = require.resolve('../src/mining/scan');
    // About roundSeconds of scanning per thread at the rates seen here.
    const range = Math.round(roundSeconds * 4e6);
    const run = async (count: number) => {
        const start = process.hrtime.bigint();
        await Promise.all(
            Array.from({ length: count }, (_, k) => {
                const code =
                    `require(${JSON.stringify(scanModule)}).scanRange(1, 'GENESIS', 256, ${k * range}, ${(k + 1) * range});` +
                    "require('node:worker_threads').parentPort.postMessage('done');";
                const worker = new Worker(code, { eval: true });
                return new Promise<void>((resolve, reject) => {
                    worker.once('message', () => resolve());
                    worker.once('error', reject);
                }).finally(() => worker.terminate());
            })
        );
        return (count * range) / seconds(start);
    };
    const one = (await run(1) + (await run(1))) / 2;
    const many = (await run(threads) + (await run(threads))) / 2;
    return { one, many };
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
