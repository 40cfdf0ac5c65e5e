// @ts-check
/**
 * `npm test`: a clean build, then every compiled test file under dist/test, at any depth, with Node's test
 * runner and a fixed reporter and timeout.
 *
 *   node test/run.mjs                                   everything
 *   node test/run.mjs dist/test/unit/ids.test.js …      only these files (still built first)
 *
 * Plain JavaScript on purpose: it runs before anything is compiled.
 *
 * - Clean: dist/test is removed before tsc, so a test deleted or renamed in test/ does not keep running
 *   from an older build.
 * - Found wherever they are: Node 20's `--test` takes no globs (they came in Node 21) and, given a folder,
 *   would also run every helper under a folder named test; so this walks dist/test for `*.test.js`
 *   itself and fails if it finds none.
 * - Reporter: `spec`, to stdout, whatever the terminal (Node picks tap or spec by TTY otherwise); it ends
 *   with the `ℹ tests / ℹ pass / ℹ fail / ℹ cancelled …` lines CI reads.
 * - Timeouts: PER_TEST_TIMEOUT_MS (default 10 minutes) for each test, enforced by test/support/perTestTimeout.ts,
 *   preloaded into every test file's process: a test that runs longer fails its file (`ℹ fail`). And
 *   `--test-timeout` (TEST_FILE_TIMEOUT_MS, default 30 minutes) as a backstop for what that cannot see (a hook
 *   that never ends): Node 20 applies it to each file as a whole, stops a file still running then and reports
 *   its unfinished tests as cancelled, failing the run. Either way a test that never settles fails `npm test`
 *   instead of hanging it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const compiledTests = join(root, 'dist', 'test');

/** Above the slowest test's own deadlines (an end-to-end run polled to completion on a loaded machine). */
const DEFAULT_PER_TEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Long enough for the slowest file (an end-to-end suite). */
const DEFAULT_FILE_TIMEOUT_MS = 30 * 60 * 1000;
const PER_TEST_TIMEOUT = join(compiledTests, 'support', 'perTestTimeout.js');

/** Every `*.test.js` under `dir`, sorted, as paths relative to the repository root. */
function findTestFiles(dir) {
    /** @type {string[]} */
    const found = [];
    const walk = (/** @type {string} */ folder) => {
        for (const entry of readdirSync(folder, { withFileTypes: true })) {
            const path = join(folder, entry.name);
            if (entry.isDirectory()) walk(path);
            else if (entry.isFile() && entry.name.endsWith('.test.js')) found.push(relative(root, path));
        }
    };
    walk(dir);
    return found.sort();
}

function run(/** @type {string} */ what, /** @type {string[]} */ args) {
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env });
    if (result.error) throw result.error;
    if (result.status !== 0) {
        console.error(`${what} failed (${result.signal ?? `exit code ${result.status}`})`);
        process.exit(result.status ?? 1);
    }
}

/** A positive whole number of milliseconds from the environment, or the default. */
function milliseconds(/** @type {string} */ name, /** @type {number} */ fallback) {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isSafeInteger(value) || value <= 0) {
        console.error(`${name} must be a positive number of milliseconds, got ${process.env[name]}`);
        process.exit(2);
    }
    return value;
}
const perTestTimeout = milliseconds('PER_TEST_TIMEOUT_MS', DEFAULT_PER_TEST_TIMEOUT_MS);
const fileTimeout = milliseconds('TEST_FILE_TIMEOUT_MS', DEFAULT_FILE_TIMEOUT_MS);

rmSync(compiledTests, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run('The build (tsc -p .)', [tsc, '-p', '.']);

const files = process.argv.length > 2 ? process.argv.slice(2) : findTestFiles(compiledTests);
if (files.length === 0) {
    console.error(`No test files (*.test.js) under ${relative(root, compiledTests)}: nothing was tested.`);
    process.exit(1);
}
process.env.PER_TEST_TIMEOUT_MS = String(perTestTimeout);
run('The tests', [
    `--require=${PER_TEST_TIMEOUT}`,
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-timeout=${fileTimeout}`,
    ...files,
]);
