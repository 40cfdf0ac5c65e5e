// @ts-check
/**
 * `npm test`: a clean build (`npm run build`'s steps: every project's output removed, `tsc -b`, each job's view), then
 * every compiled test file of the app (dist/test) and of the local host (devhost/dist/test), at any depth, with Node's
 * test runner and a fixed reporter and timeout. test/README.md says which folder holds which tests.
 *
 *   node test/run.mjs                                   everything
 *   node test/run.mjs dist/test/unit/ids.test.js …      only these files (still built first)
 *
 * Plain JavaScript on purpose: it runs before anything is compiled.
 *
 * - Clean: every project's build output is removed before `tsc -b` (scripts/clean-build.mjs), so a test deleted or
 *   renamed does not keep running from an older build, and a function file renamed in src/ is not registered twice.
 * - Found wherever they are: Node 20's `--test` takes no globs (they came in Node 21) and, given a folder,
 *   would also run every helper under a folder named test; so this walks dist/test for `*.test.js`
 *   itself and fails if it finds none.
 * - Reporter: `spec`, to stdout, whatever the terminal (Node picks tap or spec by TTY otherwise); it ends
 *   with the `ℹ tests / ℹ pass / ℹ fail / ℹ cancelled …` lines CI reads, and they stay last. Beside it,
 *   test/skipReporter.mjs lists every skipped suite and test; printed just before those lines, grouped by
 *   reason, with `ℹ suites skipped N` added to them: Node's `ℹ skipped` counts tests only, not a suite skipped
 *   as a whole (the extension's suites without .NET, the Bicep compile, conformance).
 * - Timeouts: PER_TEST_TIMEOUT_MS (default 10 minutes) for each test, enforced by the test kit's perTestTimeout,
 *   preloaded into every test file's process: a test that runs longer fails its file (`ℹ fail`). And
 *   `--test-timeout` (TEST_FILE_TIMEOUT_MS, default 30 minutes) as a backstop for what that cannot see (a hook
 *   that never ends): Node 20 applies it to each file as a whole, stops a file still running then and reports
 *   its unfinished tests as cancelled, failing the run. Either way a test that never settles fails `npm test`
 *   instead of hanging it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the compiled tests are: the app's, and the local host's own (devhost/test). */
const compiledTests = [join(root, 'dist', 'test'), join(root, 'devhost', 'dist', 'test')];

/** Above the slowest test's own deadlines (an end-to-end run polled to completion on a loaded machine). */
const DEFAULT_PER_TEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Long enough for the slowest file (an end-to-end suite). */
const DEFAULT_FILE_TIMEOUT_MS = 30 * 60 * 1000;
const PER_TEST_TIMEOUT = join(root, 'testkit', 'dist', 'perTestTimeout.js');

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

run('The clean (scripts/clean-build.mjs)', [join(root, 'scripts', 'clean-build.mjs')]);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run('The build (tsc -b)', [tsc, '-b']);
run("The views' build (scripts/build-views.mjs)", [join(root, 'scripts', 'build-views.mjs')]);

const files = process.argv.length > 2 ? process.argv.slice(2) : compiledTests.flatMap(findTestFiles);
if (files.length === 0) {
    console.error(`No test files (*.test.js) under ${compiledTests.map((dir) => relative(root, dir)).join(', ')}: nothing was tested.`);
    process.exit(1);
}
process.env.PER_TEST_TIMEOUT_MS = String(perTestTimeout);
const skipFile = join(tmpdir(), `test-skips-${process.pid}-${Date.now()}.jsonl`);
const status = await runTests([
    `--require=${PER_TEST_TIMEOUT}`,
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(join(root, 'test', 'skipReporter.mjs')).href}`,
    `--test-reporter-destination=${skipFile}`,
    `--test-timeout=${fileTimeout}`,
    ...files,
]);
process.exit(status);

/**
 * Runs Node's test runner, passing its output through as it comes, except its closing summary (from
 * `ℹ tests N` on: the counts, then the failing tests if any), which is held back so that the list of what
 * was skipped (from skipReporter.mjs) prints before it: Node's summary stays where CI reads it, at the end.
 */
async function runTests(/** @type {string[]} */ args) {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['inherit', 'pipe', 'inherit'], env: process.env });
    /** @type {string[]} */
    const held = [];
    let partial = '';
    const take = (/** @type {string} */ line) => {
        if (held.length > 0 || /^ℹ tests \d+$/.test(line)) held.push(line);
        else process.stdout.write(line + '\n');
    };
    child.stdout.setEncoding('utf8').on('data', (/** @type {string} */ text) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) take(line);
    });
    const [code, signal] = await once(child, 'close');
    if (partial !== '') take(partial);
    const reported = readSkips();
    const skipped = reported.filter((s) => s.kind !== 'todo');
    process.stdout.write(skipSummary(skipped));
    process.stdout.write(todoSummary(reported.filter((s) => s.kind === 'todo')));
    const suites = skipped.filter((s) => s.kind === 'suite').length;
    // Node counts skipped tests only; the suites skipped as a whole get a line of their own in the block.
    for (const line of held) {
        process.stdout.write(line + '\n');
        if (line.startsWith('ℹ skipped ')) process.stdout.write(`ℹ suites skipped ${suites}\n`);
    }
    if (code !== 0) console.error(`The tests failed (${signal ?? `exit code ${code}`})`);
    return code ?? 1;
}

/** @typedef {{ kind: 'suite' | 'test' | 'todo', name: string, file: string, reason: string, failed?: boolean }} Skip */

/** @returns {Skip[]} */
function readSkips() {
    let text = '';
    try {
        text = readFileSync(skipFile, 'utf8');
    } catch {
        return [];
    } finally {
        rmSync(skipFile, { force: true });
    }
    return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => /** @type {Skip} */ (JSON.parse(line)));
}

/** The known defects (todo tests), each with whether it failed this run. */
function todoSummary(/** @type {Skip[]} */ todos) {
    if (todos.length === 0) return '';
    const lines = ['', `Known defects (todo tests, not counted as failures): ${todos.length}:`];
    for (const todo of todos) {
        lines.push(`- ${todo.failed ? 'FAILED' : 'passed'} this run: ${todo.file === '' ? '' : `${relative(root, todo.file)}: `}${todo.name} (${todo.reason})`);
    }
    return lines.join('\n') + '\n';
}

/** "N suites and M tests skipped", then each reason with what it skipped. */
function skipSummary(/** @type {Skip[]} */ skipped) {
    if (skipped.length === 0) return '\nNothing skipped.\n';
    const count = (/** @type {Skip[]} */ list, /** @type {'suite' | 'test'} */ kind) => {
        const n = list.filter((s) => s.kind === kind).length;
        return `${n} ${kind}${n === 1 ? '' : 's'}`;
    };
    /** @type {Map<string, Skip[]>} */
    const byReason = new Map();
    for (const skip of skipped) byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
    const lines = ['', `Skipped: ${count(skipped, 'suite')} and ${count(skipped, 'test')}:`];
    for (const [reason, list] of byReason) {
        lines.push(`- ${reason} (${count(list, 'suite')}, ${count(list, 'test')}):`);
        for (const skip of list) lines.push(`    ${skip.file === '' ? '' : `${relative(root, skip.file)}: `}${skip.name}`);
    }
    return lines.join('\n') + '\n';
}
