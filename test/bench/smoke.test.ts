/**
 * Every benchmark module still runs to its section (`npm run bench -- --smoke`: each at its smallest, on the
 * TypeScript engine only, writing nothing). A module that throws (a start the app refuses, a setting the bench
 * no longer lifts) fails here instead of in the next full `npm run bench`. Figures are not checked, a smoke run
 * measures nothing, but what it could not measure must be said in words: no NaN, Infinity or undefined.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '@mcp-mining/testkit';

/** bench/index.ts's modules, in order, and the title each section starts with. */
const SECTIONS: ReadonlyArray<readonly [module: string, title: string]> = [
    ['orchestration', '## Orchestration on the local host'],
    ['mining', '## Mining'],
    ['responsiveness', '## Responsiveness under load'],
    ['completionLag', '## Completion-detection lag'],
    ['pastBudget', '## A run past the wait budget, polled to the end'],
    ['statusReads', '## Status reads per budgeted wait'],
    ['throughput', '## Tool-call throughput'],
    ['memory', '## Memory'],
    ['load', '## Load'],
    ['scaleOut', '## Scale-out'],
];

/** What a figure that could not be taken must never read as (bench/report/format.ts writes words instead). */
const NON_NUMBER = /\bNaN\b|-?\bInfinity\b|\bundefined\b/g;

/** Each module's smoke run is seconds on an idle 2-core machine; the limit leaves room for a loaded one. */
const LIMIT_MS = 6 * 60_000;

/** Modules smoked at once, each in a process of its own: most of a smoke run is waiting on hosts, not CPU. */
const AT_ONCE = 3;

/** `npm run bench -- --smoke --only <module>`: its exit, its output, and how long it took. */
async function smoke(module: string): Promise<{ stdout: string; stderr: string; seconds: number }> {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'bench', 'index.js'), '--smoke', '--only', module], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    const started = performance.now();
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    const tail = `\n--- stderr (end) ---\n${stderr.slice(-3000)}`;
    assert.equal(signal, null, `the smoke run of ${module} did not end within ${LIMIT_MS / 1000} s${tail}`);
    assert.equal(code, 0, `the smoke run of ${module} failed (exit code ${code})${tail}`);
    return { stdout, stderr, seconds: (performance.now() - started) / 1000 };
}

describe('npm run bench -- --smoke, one module at a time', { concurrency: AT_ONCE }, () => {
    for (const [name, title] of SECTIONS) {
        it(`${name} runs to its section and result line, and writes no BENCHMARKS.md`, async (t) => {
            const { stdout, stderr, seconds } = await smoke(name);
            assert.ok(stdout.includes(`\n${title}\n`), `${name} printed no section ${title}\n${stderr.slice(-3000)}`);
            const summary = stdout.slice(stdout.lastIndexOf('| benchmark | result | s |'));
            assert.match(summary, new RegExp(`^\\| ${name} \\| (?!\\(no result line\\))`, 'm'), `${name} has no result line`);
            assert.doesNotMatch(stderr, /wrote BENCHMARKS\.md/, 'a smoke run must not overwrite BENCHMARKS.md');
            // A figure a smoke run cannot take (no poll, no extension, no sample) is said in words, never as a non-number.
            const nonNumbers = [...stdout.matchAll(NON_NUMBER)].map((m) => stdout.slice(Math.max(0, (m.index ?? 0) - 80), (m.index ?? 0) + 20).replace(/\n/g, ' '));
            assert.deepEqual(nonNumbers, [], `the smoke output writes a figure as NaN, Infinity or undefined:\n${nonNumbers.join('\n')}`);
            t.diagnostic(`${name}: ${seconds.toFixed(0)} s`);
        });
    }
});
