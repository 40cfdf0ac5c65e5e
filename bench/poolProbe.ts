/**
 * The MineBlock activity's search rate in a process of its own, so that bench/scaleOut.ts can pin it to one
 * core (`taskset -c <cpu>`) as it pins a host: the search pool as the activity builds it (sized by
 * availableParallelism(), which honours the affinity), its threads at nice 0 as the bench sets the hosts'
 * (see scaleOut.ts), over `nonces` nonces of a block no nonce satisfies.
 * Prints one JSON line: { parallelism, hashes, seconds }, seconds of wall time, as the hosts live it.
 *
 *   taskset -c 0 node dist/bench/poolProbe.js 20000000
 */
import { availableParallelism } from 'node:os';
import { SearchPool } from '../src/jobs/mining/search';
import { PROBE_INDEX, PROBE_PREVIOUS, PROBE_START } from './kernelProbe';

/** An impossible difficulty: the pool hashes every nonce of the range. */
const NEVER = 256;

async function main(): Promise<void> {
    const nonces = Number(process.argv[2] ?? 1e7);
    if (!Number.isSafeInteger(nonces) || nonces < 1) throw new Error('usage: poolProbe.js <nonces>');
    const pool = new SearchPool({ threadNice: 0 });
    const range = (start: number, count: number) =>
        pool.searchRange({ index: PROBE_INDEX, previousHash: PROBE_PREVIOUS, difficulty: NEVER, start, end: start + count });
    await range(PROBE_START, 1e6); // warm-up: the workers, the WebAssembly compile
    const started = performance.now();
    await range(PROBE_START + 1e6, nonces);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(JSON.stringify({ parallelism: availableParallelism(), hashes: nonces, seconds }) + '\n');
    process.exit(0); // the pool's worker threads would keep the process alive
}

main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
});
