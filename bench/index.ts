/**
 * Runs every benchmark in order, prints each section and a summary table, and writes BENCHMARKS.md.
 *
 *   npm run bench                      # everything (about 12 to 15 minutes on 2 vCPUs)
 *   npm run bench -- --quick           # every module, fewer samples (about 4 minutes)
 *   npm run bench -- --smoke --no-write  # every module at its smallest, to see that it runs (test/bench/smoke.test.ts)
 *   npm run bench -- --only mining,throughput [--quick] [--no-write]  # only these: their sections and summary rows replace the old ones in BENCHMARKS.md
 *
 * orchestration, completionLag, pastBudget and statusReads run the real Durable extension beside the TypeScript engine
 * where the .NET SDK is installed (not with --smoke); without it their extension rows are skipped, saying why.
 *
 * Each module exports `run(opts)` returning a markdown section that starts with `## <Title>`, and runs
 * on its own too (`node dist/bench/<module>.js`). Every figure is a ratio against a reference measured
 * side by side in the same run, because these machines are noisy.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../test/support/spawnHost';
import { type BenchModule, RESULT, load1, machineLine, optionsFromArgv } from './common';
import { run as completionLag } from './completionLag';
import { run as load } from './load';
import { run as memory } from './memory';
import { run as mining } from './mining';
import { run as orchestration } from './orchestration';
import { run as pastBudget } from './pastBudget';
import { run as responsiveness } from './responsiveness';
import { run as scaleOut } from './scaleOut';
import { run as statusReads } from './statusReads';
import { run as throughput } from './throughput';

/**
 * The benchmarks, in the order they run and appear in BENCHMARKS.md.
 */
const MODULES: ReadonlyArray<readonly [name: string, run: BenchModule]> = [
    ['orchestration', orchestration],
    ['mining', mining],
    ['responsiveness', responsiveness],
    ['completionLag', completionLag],
    ['pastBudget', pastBudget],
    ['statusReads', statusReads],
    ['throughput', throughput],
    ['memory', memory],
    // --quick: 20 clients instead of 50; --smoke: 4 at difficulty 16.
    ['load', (opts) => load(opts.smoke ? { clients: 4, difficulty: 16 } : opts.quick ? { clients: 20 } : {})],
    ['scaleOut', scaleOut],
];

async function main(): Promise<void> {
    const { values } = parseArgs({ options: { only: { type: 'string' }, 'no-write': { type: 'boolean' } }, strict: false });
    const opts = optionsFromArgv();
    const only = typeof values.only === 'string' ? new Set(values.only.split(',')) : undefined;
    const unknown = [...(only ?? [])].filter((name) => !MODULES.some(([n]) => n === name));
    if (unknown.length > 0) throw new Error(`unknown module(s): ${unknown.join(', ')}; known: ${MODULES.map(([n]) => n).join(', ')}`);

    const started = new Date();
    const loadAtStart = load1();
    const sections: string[] = [];
    const summary: Array<[string, string[], number]> = [];
    for (const [name, run] of MODULES) {
        if (only !== undefined && !only.has(name)) continue;
        process.stderr.write(`bench: ${name}…\n`);
        const t = performance.now();
        const section = await run(opts);
        const seconds = (performance.now() - t) / 1000;
        process.stdout.write(`\n${section}\n`);
        sections.push(section);
        summary.push([name, results(section), seconds]);
    }

    const table = [
        '| benchmark | result | s |',
        '|---|---|---:|',
        ...summary.flatMap(([n, lines, s]) => summaryRows(n, lines, s)),
    ];
    process.stdout.write(`\n${table.join('\n')}\n`);
    // Smoke figures are too few to stand for anything.
    if (values['no-write'] === true || opts.smoke) return;
    const path = join(repoRoot, 'BENCHMARKS.md');
    // Some modules only: their sections and summary rows replace (or join) those of the file, the rest stays as it was.
    if (only !== undefined && existsSync(path)) {
        writeFileSync(path, mergeSections(readFileSync(path, 'utf8'), sections, summary));
        process.stderr.write(`bench: replaced ${summary.map(([n]) => n).join(', ')} in BENCHMARKS.md\n`);
        return;
    }
    const doc = [
        '# Benchmarks',
        '',
        `Written by \`npm run bench\`${opts.quick ? ' (--quick)' : ''} on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC: ` +
            `${machineLine()}; load average ${loadAtStart.toFixed(1)} at the start and ${load1().toFixed(1)} at the end. ` +
            'Each figure is a ratio against a reference measured side by side in the same run: absolute times on a shared ' +
            'machine do not carry from one run to the next.' +
            (loadAtStart > availableParallelism()
                ? ` The machine was shared with other work during this run (a load average above its ${availableParallelism()} ` +
                  'vCPUs): read the ratios, not the milliseconds.'
                : '') +
            (opts.quick ? ' `--quick`: every module with fewer samples (see each section for its counts).' : ''),
        '',
        '## Summary',
        '',
        ...table,
        '',
        ...sections.flatMap((section) => [section, '']),
    ].join('\n');
    writeFileSync(path, doc);
    process.stderr.write('bench: wrote BENCHMARKS.md\n');
}

/** A module's rows of the summary table: the first names it, the rest (its further result lines) leave the name blank. */
function summaryRows(name: string, lines: readonly string[], seconds: number): string[] {
    return lines.map((line, k) => `| ${k === 0 ? name : ''} | ${line} | ${k === 0 ? seconds.toFixed(0) : ''} |`);
}

/**
 * BENCHMARKS.md with each given section put in place of the section of the same title (or appended), and each
 * module's summary rows in place of its old ones (or at the table's end).
 */
function mergeSections(doc: string, sections: readonly string[], summary: ReadonlyArray<[string, string[], number]>): string {
    let text = doc;
    for (const section of sections) {
        const title = section.split('\n', 1)[0] as string;
        const start = text.indexOf(`\n${title}\n`);
        if (start < 0) {
            text = `${text.trimEnd()}\n\n${section}\n`;
            continue;
        }
        const next = text.indexOf('\n## ', start + title.length + 1);
        text = `${text.slice(0, start + 1)}${section}\n${next < 0 ? '' : text.slice(next)}`;
    }
    const lines = text.split('\n');
    for (const [name, results, seconds] of summary) {
        const rows = summaryRows(name, results, seconds);
        const at = lines.findIndex((line) => line.startsWith(`| ${name} |`));
        if (at >= 0) {
            let end = at + 1;
            while (lines[end]?.startsWith('|  |') === true) end++;
            lines.splice(at, end - at, ...rows);
            continue;
        }
        const header = lines.indexOf('| benchmark | result | s |');
        if (header < 0) continue;
        let end = header + 2;
        while (lines[end]?.startsWith('|') === true) end++;
        lines.splice(end, 0, ...rows);
    }
    return lines.join('\n');
}

/** The lines of a section that state its results (see `result` in common.ts). */
function results(section: string): string[] {
    const lines = section.split('\n').filter((l) => l.startsWith(RESULT)).map((l) => l.slice(RESULT.length));
    return lines.length > 0 ? lines : ['(no result line)'];
}

main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
});
