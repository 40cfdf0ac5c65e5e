import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

/**
 * What every benchmark module shares: its options, the machine it ran on, and running standalone.
 * A module measures and returns its figures; bench/report/ turns them into its BENCHMARKS.md section. The figures'
 * types are in bench/figures/, imported by both: a module run alone imports its report, so the report must not
 * import the module back (test/unit/benchImports.test.ts holds bench/ to no import circle).
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

export interface Machine {
    vcpus: number;
    cpuModel: string;
    node: string;
    platform: string;
}

export function machine(): Machine {
    return { vcpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown CPU', node: process.version, platform: process.platform };
}

/** Prints a section once it is rendered; a failure goes to stderr and sets the exit code. */
export function printSection(section: Promise<string>): void {
    section
        .then((text) => process.stdout.write(text + '\n'))
        .catch((error: unknown) => {
            process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
            process.exitCode = 1;
        });
}

/** When the calling module is the main module (`node dist/bench/<module>.js`), measures, renders and prints its section. */
export function runIfMain<F>(mod: NodeModule, measure: (opts: BenchOptions) => Promise<F>, render: (figures: F) => string): void {
    if (require.main !== mod) return;
    printSection(measure(optionsFromArgv()).then(render));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
