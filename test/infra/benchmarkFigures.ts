/**
 * Readers for the figures BENCHMARKS.md records and for the defaults table of docs/how-it-works.md ("Defaults
 * and why"), for the tests that hold the defaults to their rules (defaultDifficulty.test.ts, fanOutDefaults.test.ts).
 * Tables are read by their column names, so a column added or a row annotated ("(the default)") does not break them.
 */
import { readRepoFile } from './files';

/** The text of the section under the heading `heading` (its level included, e.g. '## Mining'), up to the next heading of that level or above. */
export function sectionOf(markdown: string, heading: string): string {
    const lines = markdown.split('\n');
    const start = lines.indexOf(heading);
    if (start < 0) throw new Error(`no heading "${heading}"`);
    const level = heading.indexOf(' ');
    const end = lines.findIndex((line, k) => k > start && /^#+ /.test(line) && line.indexOf(' ') <= level);
    return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The rows of the first table in `text` whose header starts with `firstColumn`, each as column name → cell. */
export function tableOf(text: string, firstColumn: string): Array<Record<string, string>> {
    const lines = text.split('\n');
    const header = lines.findIndex((line) => line.startsWith(`| ${firstColumn} |`));
    if (header < 0) throw new Error(`no table starting with "${firstColumn}"`);
    const cells = (line: string) =>
        line
            .slice(1, line.endsWith('|') ? -1 : undefined)
            .split('|')
            .map((cell) => cell.trim());
    const names = cells(lines[header] as string);
    const rows: Array<Record<string, string>> = [];
    for (const line of lines.slice(header + 2)) {
        if (!line.startsWith('|')) break;
        const row = cells(line);
        rows.push(Object.fromEntries(names.map((name, k) => [name, row[k] ?? ''])));
    }
    return rows;
}

/** A cell's column, which must exist. */
export function cell(row: Record<string, string>, column: string): string {
    const value = row[column];
    if (value === undefined) throw new Error(`no column "${column}" in ${JSON.stringify(row)}`);
    return value;
}

/** The first number in a cell ("51.2", "**1.086**", "6.2 s (too long)", "434,389,820"). */
export function numberIn(text: string): number {
    const match = /-?\d[\d,]*(?:\.\d+)?/.exec(text.replace(/\*/g, ''));
    if (match === null) throw new Error(`no number in "${text}"`);
    return Number(match[0].replace(/,/g, ''));
}

/** A power of two written 2^n ("2^23", "2^23 (the default)"). */
export function powerOfTwoIn(text: string): number {
    const match = /2\^(\d+)/.exec(text);
    if (match === null) throw new Error(`no 2^n in "${text}"`);
    return 2 ** Number(match[1]);
}

export const benchmarks = () => readRepoFile('BENCHMARKS.md');

/** The default chain's runs on two cores as "Mining" records them. */
export function recordedDifficultyRuns(): Array<{ difficulty: number; attempts: number; seconds: number; cells: Record<string, string> }> {
    return tableOf(sectionOf(benchmarks(), '## Mining'), 'difficulty').map((row) => ({
        difficulty: numberIn(cell(row, 'difficulty')),
        attempts: numberIn(cell(row, 'total_attempts')),
        seconds: numberIn(cell(row, 's on 2 cores')),
        cells: row,
    }));
}

/** The "Defaults" subsection of "Scale-out". */
export function scaleOutDefaults(): string {
    return sectionOf(sectionOf(benchmarks(), '## Scale-out'), '### Defaults');
}

/** The model's figures per RANGE_SIZE as "Scale-out", "Defaults" records them. */
export function recordedSizeRows(): Array<{ size: number; slowCoreSeconds: number; defaultChainSeconds: number; wideChainSeconds: number; worst: number; tooLong: boolean }> {
    return tableOf(scaleOutDefaults(), 'RANGE_SIZE').map((row) => ({
        size: powerOfTwoIn(cell(row, 'RANGE_SIZE')),
        slowCoreSeconds: numberIn(cell(row, 'on a core at a quarter of the rate')),
        tooLong: cell(row, 'on a core at a quarter of the rate').includes('too long'),
        defaultChainSeconds: numberIn(cell(row, 'default chain, 1 × 2 cores')),
        wideChainSeconds: numberIn(cell(row, '2^34 chain, 16 × 1 core')),
        worst: numberIn(cell(row, 'worst')),
    }));
}

/** The model's default chain per window as "Scale-out", "Defaults" records it, and the RANGE_SIZE it was modelled at. */
export function recordedWindows(): { rangeSize: number; rows: Array<{ parallel: number; seconds: number }> } {
    const line = scaleOutDefaults()
        .split('\n')
        .find((l) => l.startsWith('PARALLEL_RANGES: the default chain at RANGE_SIZE '));
    const match = line === undefined ? null : /^PARALLEL_RANGES: the default chain at RANGE_SIZE (2\^\d+) on one 2-core instance with P = ([\d, ]+): ([\d., s]+?) \(waste/.exec(line);
    if (match === null) throw new Error('BENCHMARKS.md, Scale-out, Defaults: no line "PARALLEL_RANGES: the default chain at RANGE_SIZE … with P = …: … s (waste …"');
    const windows = (match[2] as string).split(',').map((p) => Number(p.trim()));
    const seconds = (match[3] as string).split(',').map((t) => numberIn(t));
    if (windows.length !== seconds.length) throw new Error(`${windows.length} windows but ${seconds.length} times: ${line}`);
    return { rangeSize: powerOfTwoIn(match[1] as string), rows: windows.map((parallel, k) => ({ parallel, seconds: seconds[k] as number })) };
}

/** The two-host ratio "Scale-out" records, and the PARALLEL_RANGES its runs recorded in their input. */
export function recordedTwoHosts(): { ratio: number; parallelRanges: number } {
    const text = sectionOf(benchmarks(), '## Scale-out');
    const ratio = /two pinned hosts \/ one, same chain on the real extension: \*\*([\d.]+)x\*\*/.exec(text)?.[1];
    const parallel = /Recorded in the input: parallel_ranges (\d+)/.exec(text)?.[1];
    if (ratio === undefined || parallel === undefined) throw new Error('BENCHMARKS.md, Scale-out: no two-host ratio or recorded parallel_ranges');
    return { ratio: Number(ratio), parallelRanges: Number(parallel) };
}

/** docs/how-it-works.md, "Defaults and why": each setting's row (the backticks of its name dropped). */
export function documentedDefaults(): Map<string, Record<string, string>> {
    const rows = tableOf(sectionOf(readRepoFile('docs/how-it-works.md'), '## Defaults and why'), 'setting');
    return new Map(rows.map((row) => [cell(row, 'setting').replace(/`/g, ''), row]));
}

/** One setting's documented row, which must exist. */
export function documentedDefault(setting: string): { value: string; rule: string; figures: string } {
    const row = documentedDefaults().get(setting);
    if (row === undefined) throw new Error(`docs/how-it-works.md, "Defaults and why" has no row for ${setting}`);
    return { value: cell(row, 'default'), rule: cell(row, 'the rule'), figures: cell(row, 'the figures it rests on (BENCHMARKS.md)') };
}
