import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The search pool's rate pinned to one CPU, in a process of its own (bench/poolProbe.ts), as a pinned host lives it. */
export async function pinnedPoolRate(cpu: string, nonces: number): Promise<{ rate: number; parallelism: number }> {
    const { stdout } = await promisify(execFile)('taskset', ['-c', cpu, process.execPath, join(__dirname, 'poolProbe.js'), String(nonces)]);
    const probe = JSON.parse(stdout) as { parallelism: number; hashes: number; seconds: number };
    return { rate: probe.hashes / probe.seconds, parallelism: probe.parallelism };
}
