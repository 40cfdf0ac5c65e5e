// @ts-check
/**
 * One test file in a process of its own: `node --require <perTestTimeout> --test-reporter=spec … file.js`. Node's
 * test runner runs a file given to `node` directly, with the reporters given; so the run starts exactly one process
 * per file (not Node's `--test` parent as well) and knows when each file began and ended.
 *
 * - Its output is held and handed back whole, so that files running side by side never interleave their lines.
 * - Its results come from resultsReporter.mjs, one JSON line per test or suite, in a file of its own.
 * - A file that outlives `fileTimeoutMs` is stopped (SIGTERM, which the test kit's hosts follow, then SIGKILL) and
 *   counts as failed; so is a file whose process ends with an error outside any test.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** @typedef {import('./resultsReporter.mjs').Ended} Ended */
/** @typedef {{ file: string, round: number, ms: number, exitCode: number | null, signal: string | null, timedOut: boolean, output: string, results: Ended[] }} FileRun */

let nextResults = 0;

/**
 * Runs `file` (relative to `root`) to its end; never rejects for what the file does.
 * @param {{ root: string, file: string, round: number, perTestTimeout: string, fileTimeoutMs: number, env: NodeJS.ProcessEnv }} options
 * @returns {Promise<FileRun>}
 */
export async function runFile({ root, file, round, perTestTimeout, fileTimeoutMs, env }) {
    const resultsFile = join(tmpdir(), `test-results-${process.pid}-${nextResults++}.jsonl`);
    const args = [
        `--require=${perTestTimeout}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${pathToFileURL(join(root, 'test', 'runner', 'resultsReporter.mjs')).href}`,
        `--test-reporter-destination=${resultsFile}`,
        file,
    ];
    const began = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {string[]} */
    const output = [];
    child.stdout.setEncoding('utf8').on('data', (/** @type {string} */ text) => output.push(text));
    child.stderr.setEncoding('utf8').on('data', (/** @type {string} */ text) => output.push(text));
    let timedOut = false;
    const timer = setTimeout(() => {
        timedOut = true;
        output.push(`\n✖ ${file} did not end within ${fileTimeoutMs} ms (TEST_FILE_TIMEOUT_MS): stopped.\n`);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, fileTimeoutMs);
    const [exitCode, signal] = /** @type {[number | null, string | null]} */ (await once(child, 'close'));
    clearTimeout(timer);
    const ms = performance.now() - began;
    /** @type {Ended[]} */
    const results = [];
    let text = '';
    try {
        text = readFileSync(resultsFile, 'utf8');
    } catch {
        // No results: the process ended before its reporter wrote any; the exit code says so.
    } finally {
        rmSync(resultsFile, { force: true });
    }
    for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        try {
            results.push(/** @type {Ended} */ (JSON.parse(line)));
        } catch {
            output.push(`\n✖ an unreadable line from resultsReporter.mjs: ${line.slice(0, 300)}\n`);
        }
    }
    return { file, round, ms, exitCode, signal, timedOut, output: output.join(''), results };
}

/** True when the file passed: its process ended 0, within its time. */
export function passed(/** @type {FileRun} */ run) {
    return run.exitCode === 0 && !run.timedOut;
}
