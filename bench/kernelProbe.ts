/**
 * One kernel's hash rate on the calling thread, run as its own process so the mining bench can pin
 * it to one core (taskset) exactly like `openssl speed`. Prints one JSON line:
 * { kernel, hashes, seconds, cpuSeconds, messageBytes }. cpuSeconds is the process's own CPU time over the
 * same loop: what `openssl speed` divides by too (user CPU time unless `-elapsed`), so a core shared with
 * other work still gives the rate of a dedicated one.
 *
 *   node dist/bench/kernelProbe.js wasm|crypto|plain <seconds>
 */
import { createHash } from 'node:crypto';
import { meetsDifficulty } from '../src/jobs/mining/hashRule';
import { scanRange, scanRangeNodeCrypto } from '../src/jobs/mining/scan';

/** Block 1 of a chain: a 64-hex previous hash, and 9-digit nonces (those of difficulties 26 to 28). */
export const PROBE_INDEX = 1;
export const PROBE_PREVIOUS = '00000f0ae069f928c3308babadb0794eba48e7c26e4b16428bb7af9be5c2ab50';
export const PROBE_START = 100_000_000;
export const PROBE_MESSAGE_BYTES = Buffer.byteLength(`${PROBE_INDEX}:${PROBE_PREVIOUS}:${PROBE_START}`);

/** An impossible difficulty: every kernel hashes every nonce of its range. */
const NEVER = 256;

function plain(start: number, end: number): void {
    for (let n = start; n < end; n++) {
        if (meetsDifficulty(createHash('sha256').update(`${PROBE_INDEX}:${PROBE_PREVIOUS}:${n}`, 'utf8').digest(), NEVER)) return;
    }
}

const kernels = {
    wasm: (start: number, end: number) => void scanRange(PROBE_INDEX, PROBE_PREVIOUS, NEVER, start, end),
    crypto: (start: number, end: number) => void scanRangeNodeCrypto(PROBE_INDEX, PROBE_PREVIOUS, NEVER, start, end),
    plain,
};

function main(): void {
    const name = process.argv[2] as keyof typeof kernels;
    const kernel = kernels[name];
    const seconds = Number(process.argv[3] ?? 2);
    if (kernel === undefined || !(seconds > 0)) throw new Error('usage: kernelProbe.js wasm|crypto|plain <seconds>');
    const step = 100_000;
    kernel(PROBE_START, PROBE_START + step); // warm-up (JIT, the WebAssembly compile)
    let next = PROBE_START + step;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const deadline = started + seconds * 1000;
    while (performance.now() < deadline) {
        kernel(next, next + step);
        next += step;
    }
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    process.stdout.write(JSON.stringify({ kernel: name, hashes: next - PROBE_START - step, seconds: elapsed, cpuSeconds: (cpu.user + cpu.system) / 1e6, messageBytes: PROBE_MESSAGE_BYTES }) + '\n');
}

if (require.main === module) main();
