/**
 * Runs every benchmark in order, prints each section and a summary table, and writes BENCHMARKS.md.
 *
 *   npm run bench                      # everything (about 12 to 15 minutes on 2 vCPUs)
 *   npm run bench -- --quick           # every module, fewer samples (about 4 minutes)
 *   npm run bench -- --smoke --no-write  # every module at its smallest, to see that it runs (test/bench/smoke.test.ts)
 *   npm run bench -- --only mining,throughput [--quick] [--no-write]  # only these: their sections and summary rows replace the old ones in BENCHMARKS.md
 *
 * orchestration, completionLag, pastBudget, statusReads and scaleOut run the real Durable extension beside the TypeScript
 * engine where the .NET SDK is installed (not with --smoke); without it their extension rows are skipped, saying why.
 *
 * Each module (bench/modules.ts) measures and returns its figures (their types: bench/figures/); its template in
 * bench/report/ renders them as a section starting with `## <Title>`, whose "Result:" lines go to the summary. Each
 * also runs on its own (`node dist/bench/<module>.js`). Every figure is a ratio against a reference measured side by side in the same
 * run, because these machines are noisy. The defaults (DEFAULT_DIFFICULTY, RANGE_SIZE, PARALLEL_RANGES) are a
 * documented decision (docs/how-it-works.md, "Defaults and why"): a run only says whether they still meet their rules.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '@mcp-mining/testkit';
import { load1, machine, optionsFromArgv } from './common';
import { MODULES } from './modules';
import { mergeSections, suiteSection, type RenderedSection, renderDocument, summaryTable } from './report/document';

async function main(): Promise<void> {
    const { values } = parseArgs({ options: { only: { type: 'string' }, 'no-write': { type: 'boolean' } }, strict: false });
    const opts = optionsFromArgv();
    const only = typeof values.only === 'string' ? new Set(values.only.split(',')) : undefined;
    const unknown = [...(only ?? [])].filter((name) => !MODULES.some((m) => m.name === name));
    if (unknown.length > 0) throw new Error(`unknown module(s): ${unknown.join(', ')}; known: ${MODULES.map((m) => m.name).join(', ')}`);

    const started = new Date();
    const loadAtStart = load1();
    const sections: RenderedSection[] = [];
    for (const { name, run } of MODULES) {
        if (only !== undefined && !only.has(name)) continue;
        process.stderr.write(`bench: ${name}…\n`);
        const t = performance.now();
        const markdown = await run(opts);
        sections.push({ name, markdown, seconds: (performance.now() - t) / 1000 });
        process.stdout.write(`\n${markdown}\n`);
    }

    process.stdout.write(`\n${summaryTable(sections).join('\n')}\n`);
    // Smoke figures are too few to stand for anything.
    if (values['no-write'] === true || opts.smoke) return;
    const path = join(repoRoot, 'BENCHMARKS.md');
    // Some modules only: their sections and summary rows replace (or join) those of the file, the rest stays as it was.
    if (only !== undefined && existsSync(path)) {
        writeFileSync(path, mergeSections(readFileSync(path, 'utf8'), sections));
        process.stderr.write(`bench: replaced ${sections.map((s) => s.name).join(', ')} in BENCHMARKS.md\n`);
        return;
    }
    // The suite's times are measured by hand (BENCHMARKS.md, "The suite"), not by a module: a full run keeps them.
    const suite = existsSync(path) ? suiteSection(readFileSync(path, 'utf8')) : undefined;
    const document = renderDocument({ started, quick: opts.quick, machine: machine(), loadAtStart, loadAtEnd: load1() }, sections);
    writeFileSync(path, suite === undefined ? document : `${document.trimEnd()}\n\n${suite}\n`);
    process.stderr.write('bench: wrote BENCHMARKS.md\n');
}

main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
});
