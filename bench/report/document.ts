/**
 * BENCHMARKS.md as a whole: its opening paragraph, the summary table of every section's "Result:" lines, and,
 * for `--only`, the old file with the new sections and summary rows put in place of theirs.
 */
import type { Machine } from '../common';
import { fmt, RESULT } from './format';

/** One module's rendered section and how long the module took. */
export interface RenderedSection {
    name: string;
    markdown: string;
    seconds: number;
}

/** What the opening paragraph states about the run. */
export interface RunFigures {
    started: Date;
    quick: boolean;
    machine: Machine;
    loadAtStart: number;
    loadAtEnd: number;
}

const TABLE_HEADER = '| benchmark | result | s |';

/** The lines of a section that state its results (see `result` in format.ts). */
export function resultLines(markdown: string): string[] {
    const lines = markdown
        .split('\n')
        .filter((l) => l.startsWith(RESULT))
        .map((l) => l.slice(RESULT.length));
    return lines.length > 0 ? lines : ['(no result line)'];
}

/** A module's rows of the summary table: the first names it, the rest (its further result lines) leave the name blank. */
function summaryRows(section: RenderedSection): string[] {
    return resultLines(section.markdown).map((line, k) => `| ${k === 0 ? section.name : ''} | ${line} | ${k === 0 ? fmt(section.seconds, 0) : ''} |`);
}

export function summaryTable(sections: readonly RenderedSection[]): string[] {
    return [TABLE_HEADER, '|---|---|---:|', ...sections.flatMap(summaryRows)];
}

/** The whole BENCHMARKS.md of a run of every module. */
export function renderDocument(run: RunFigures, sections: readonly RenderedSection[]): string {
    const { machine } = run;
    const shared = run.loadAtStart > machine.vcpus;
    return [
        '# Benchmarks',
        '',
        `Written by \`npm run bench\`${run.quick ? ' (--quick)' : ''} on ${run.started.toISOString().slice(0, 16).replace('T', ' ')} UTC: ` +
            `${machine.vcpus} vCPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.platform}; ` +
            `load average ${fmt(run.loadAtStart, 1)} at the start and ${fmt(run.loadAtEnd, 1)} at the end. ` +
            'Each figure is a ratio against a reference measured side by side in the same run: absolute times on a shared ' +
            'machine do not carry from one run to the next.' +
            (shared
                ? ` The machine was shared with other work during this run (a load average above its ${machine.vcpus} ` +
                  'vCPUs): read the ratios, not the milliseconds.'
                : '') +
            (run.quick ? ' `--quick`: every module with fewer samples (see each section for its counts).' : ''),
        '',
        '## Summary',
        '',
        ...summaryTable(sections),
        '',
        ...sections.flatMap((section) => [section.markdown, '']),
    ].join('\n');
}

/** The title of the hand-written section on the test suite's times (not a benchmark module's): a full run keeps it. */
export const SUITE_TITLE = '## The suite';

/** The old file's hand-written suite section, if it has one, for a full run to carry over. */
export function suiteSection(doc: string): string | undefined {
    const start = doc.indexOf(`\n${SUITE_TITLE}\n`);
    if (start < 0) return undefined;
    const next = doc.indexOf('\n## ', start + SUITE_TITLE.length + 1);
    return doc.slice(start + 1, next < 0 ? undefined : next).trimEnd();
}

/**
 * BENCHMARKS.md with each given section put in place of the section of the same title (or appended), and each
 * module's summary rows in place of its old ones (or at the table's end).
 */
export function mergeSections(doc: string, sections: readonly RenderedSection[]): string {
    let text = doc;
    for (const { markdown } of sections) {
        const title = markdown.split('\n', 1)[0] as string;
        const start = text.indexOf(`\n${title}\n`);
        if (start < 0) {
            text = `${text.trimEnd()}\n\n${markdown}\n`;
            continue;
        }
        const next = text.indexOf('\n## ', start + title.length + 1);
        text = `${text.slice(0, start + 1)}${markdown}\n${next < 0 ? '' : text.slice(next)}`;
    }
    const lines = text.split('\n');
    for (const section of sections) {
        const rows = summaryRows(section);
        const at = lines.findIndex((line) => line.startsWith(`| ${section.name} |`));
        if (at >= 0) {
            let end = at + 1;
            while (lines[end]?.startsWith('|  |') === true) end++;
            lines.splice(at, end - at, ...rows);
            continue;
        }
        const header = lines.indexOf(TABLE_HEADER);
        if (header < 0) continue;
        let end = header + 2;
        while (lines[end]?.startsWith('|') === true) end++;
        lines.splice(end, 0, ...rows);
    }
    return lines.join('\n');
}
