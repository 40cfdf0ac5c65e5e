import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

/**
 * What every benchmark module shares: its options, the machine line, and running standalone.
 * A module exports `run(opts)`, which returns a markdown section starting with `## <Title>`;
 * bench/index.ts runs them in order and writes BENCHMARKS.md.
 */

export interface BenchOptions {
    /** A short run: fewer samples, same measurements. Figures are noisier. */
    quick: boolean;
    /**
     * The smallest run of each module (implies quick), for test/bench/smoke.test.ts: it proves every module
     * still runs to its section, not what the figures are.
     */
    smoke: boolean;
}

export type BenchModule = (opts: BenchOptions) => Promise<string>;

export function optionsFromArgv(argv: readonly string[] = process.argv.slice(2)): BenchOptions {
    const { values } = parseArgs({
        args: [...argv],
        options: { quick: { type: 'boolean' }, smoke: { type: 'boolean' }, only: { type: 'string' } },
        strict: false,
    });
    const smoke = values.smoke === true;
    return { quick: smoke || values.quick === true, smoke };
}

export function load1(): number {
    return loadavg()[0] ?? 0;
}

export function machineLine(): string {
    return `${availableParallelism()} vCPUs (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}`;
}

/** Runs `run` when the calling module is the main module, printing its section. */
export function runIfMain(mod: NodeModule, run: BenchModule): void {
    if (require.main !== mod) return;
    run(optionsFromArgv())
        .then((section) => process.stdout.write(section + '\n'))
        .catch((error: unknown) => {
            process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
            process.exitCode = 1;
        });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const fmt = (value: number, digits = 2) => value.toFixed(digits);
export const mhs = (hashesPerSecond: number) => `${(hashesPerSecond / 1e6).toFixed(2)} MH/s`;
export const met = (ok: boolean) => (ok ? '**met**' : '**missed**');

/** A section's result line; bench/index.ts copies every such line into the summary table. */
export const RESULT = 'Result: ';
export const result = (text: string) => `${RESULT}${text}`;
