// @ts-check
/**
 * What a run prints at its end, from every file's results (resultsReporter.mjs): what was skipped and why, the known
 * defects, the time per folder, every test that failed (with the runs it failed in, under --repeat), and last
 * Node's own count lines (`ℹ tests N`, `ℹ pass N`, `ℹ fail N`, …) summed over the files, where CI reads them.
 */
import { passed } from './fileRun.mjs';

/** @typedef {import('./fileRun.mjs').FileRun} FileRun */
/** @typedef {import('./resultsReporter.mjs').Ended} Ended */

/** Folders by the test map's names (test/README.md), longest prefix first. */
const FOLDERS = ['dist/test/unit/', 'dist/test/e2e/', 'dist/test/infra/', 'dist/test/docs/', 'dist/test/bench/', 'devhost/dist/test/'];

const plural = (/** @type {number} */ n, /** @type {string} */ what) => `${n} ${what}${n === 1 ? '' : 's'}`;
const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;

/** "N suites and M tests skipped", then each reason with what it skipped. */
function skipped(/** @type {FileRun[]} */ runs) {
    /** @type {Map<string, Set<string>>} */
    const byReason = new Map();
    let suites = 0;
    let tests = 0;
    for (const run of runs.filter((r) => r.round === 0)) {
        for (const ended of run.results) {
            if (ended.skip === undefined) continue;
            if (ended.kind === 'suite') suites++;
            else tests++;
            const seen = byReason.get(ended.skip) ?? new Set();
            seen.add(`${run.file}: ${ended.name}${ended.kind === 'suite' ? ' (suite)' : ''}`);
            byReason.set(ended.skip, seen);
        }
    }
    if (byReason.size === 0) return ['', 'Nothing skipped.'];
    const lines = ['', `Skipped: ${plural(suites, 'suite')} and ${plural(tests, 'test')}:`];
    for (const [reason, what] of byReason) {
        lines.push(`- ${reason}:`);
        for (const item of what) lines.push(`    ${item}`);
    }
    return lines;
}

/** The known defects (todo tests), each with the runs it failed in. */
function knownDefects(/** @type {FileRun[]} */ runs) {
    /** @type {Map<string, { reason: string, failed: number, ran: number }>} */
    const todos = new Map();
    for (const run of runs) {
        for (const ended of run.results) {
            if (ended.todo === undefined) continue;
            const key = `${run.file}: ${ended.name}`;
            const seen = todos.get(key) ?? { reason: ended.todo, failed: 0, ran: 0 };
            seen.ran++;
            if (ended.outcome === 'fail') seen.failed++;
            todos.set(key, seen);
        }
    }
    if (todos.size === 0) return [];
    const lines = ['', `Known defects (todo tests, not counted as failures): ${todos.size}:`];
    for (const [key, { reason, failed, ran }] of todos) {
        lines.push(`- ${failed > 0 ? `FAILED in ${failed} of ${ran}` : `passed in ${ran} of ${ran}`}: ${key} (${reason})`);
    }
    return lines;
}

/** Wall time per folder: the files' own times summed (they overlap when files run side by side). */
function timePerFolder(/** @type {FileRun[]} */ runs, /** @type {number} */ wallMs) {
    /** @type {Map<string, { ms: number, files: number }>} */
    const folders = new Map();
    for (const run of runs) {
        const folder = FOLDERS.find((f) => run.file.startsWith(f)) ?? 'other';
        const seen = folders.get(folder) ?? { ms: 0, files: 0 };
        seen.ms += run.ms;
        seen.files++;
        folders.set(folder, seen);
    }
    const slowest = [...runs].sort((a, b) => b.ms - a.ms).slice(0, 5);
    return [
        '',
        `Time: ${seconds(wallMs)} in all; per folder, its files' times added up:`,
        ...[...folders].map(([folder, { ms, files }]) => `    ${folder.padEnd(20)} ${seconds(ms).padStart(9)}  (${plural(files, 'file run')})`),
        `  slowest: ${slowest.map((run) => `${run.file} ${seconds(run.ms)}`).join(', ')}`,
    ];
}

/** Every failing test (or file that failed outside its tests), once, with the runs it failed in. */
function failures(/** @type {FileRun[]} */ runs, /** @type {number} */ rounds) {
    /** @type {Map<string, { rounds: number[], error: string }>} */
    const failed = new Map();
    const note = (/** @type {string} */ key, /** @type {number} */ round, /** @type {string} */ error) => {
        const seen = failed.get(key) ?? { rounds: [], error };
        seen.rounds.push(round + 1);
        failed.set(key, seen);
    };
    for (const run of runs) {
        const failing = run.results.filter((e) => e.outcome === 'fail' && e.todo === undefined && e.kind === 'test');
        for (const ended of failing) note(`${run.file}: ${ended.name}`, run.round, ended.error ?? '');
        if (!passed(run) && failing.length === 0) {
            const why = run.timedOut ? 'did not end in time' : `ended with ${run.signal ?? `exit code ${run.exitCode}`} outside any test`;
            note(`${run.file}: the file ${why}`, run.round, run.output.split('\n').slice(-15).join('\n'));
        }
    }
    if (failed.size === 0) return [];
    const lines = ['', `✖ failing: ${plural(failed.size, 'test')}${rounds > 1 ? ` (of ${rounds} runs of each file)` : ''}:`];
    for (const [key, { rounds: inRuns, error }] of failed) {
        lines.push(`✖ ${key}${rounds > 1 ? ` (failed in run${inRuns.length === 1 ? '' : 's'} ${inRuns.join(', ')} of ${rounds})` : ''}`);
        for (const line of error.split('\n').slice(0, 12)) lines.push(`    ${line}`);
    }
    return lines;
}

/** Node's count lines, summed over every file run (each skipped suite counted too, in a line of its own). */
function counts(/** @type {FileRun[]} */ runs, /** @type {number} */ wallMs) {
    const all = runs.flatMap((run) => run.results);
    const tests = all.filter((e) => e.kind === 'test');
    const is = (/** @type {Ended} */ e) => e.skip === undefined && e.todo === undefined;
    const cancelled = tests.filter((e) => e.outcome === 'fail' && e.failureType === 'cancelledByParent');
    const lines = [
        `ℹ files ${runs.length}`,
        `ℹ files failed ${runs.filter((run) => !passed(run)).length}`,
        `ℹ tests ${tests.length}`,
        `ℹ suites ${all.filter((e) => e.kind === 'suite').length}`,
        `ℹ pass ${tests.filter((e) => is(e) && e.outcome === 'pass').length}`,
        `ℹ fail ${tests.filter((e) => is(e) && e.outcome === 'fail').length - cancelled.length}`,
        `ℹ cancelled ${cancelled.length}`,
        `ℹ skipped ${tests.filter((e) => e.skip !== undefined).length}`,
        `ℹ suites skipped ${all.filter((e) => e.kind === 'suite' && e.skip !== undefined).length}`,
        `ℹ todo ${tests.filter((e) => e.todo !== undefined).length}`,
        `ℹ duration_ms ${Math.round(wallMs)}`,
    ];
    return lines;
}

/** The closing block of a run. */
export function summary(/** @type {FileRun[]} */ runs, /** @type {number} */ rounds, /** @type {number} */ wallMs) {
    return [...skipped(runs), ...knownDefects(runs), ...timePerFolder(runs, wallMs), ...failures(runs, rounds), '', ...counts(runs, wallMs), ''].join('\n');
}
