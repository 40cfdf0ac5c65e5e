// @ts-check
/**
 * `npm test`: a clean build (`npm run build`'s steps: every project's output removed, `tsc -b`, each job's view), then
 * every compiled test file of the app (dist/test) and of the local host (devhost/dist/test), each in a process of its
 * own, several at once. test/README.md says which folder holds which tests.
 *
 *   node test/run.mjs                                  everything (what CI runs)
 *   node test/run.mjs --quick                          the inner loop: unit, docs, the contract per job on the ts engine
 *   node test/run.mjs test/e2e/mcp.test.ts …           only these files or folders (source or compiled paths)
 *   node test/run.mjs --repeat 5 test/e2e/x.test.ts    each file 5 times: every test that failed in any run, and in which
 *   node test/run.mjs --backend ts …                   the suites of one Durable backend only (TEST_BACKENDS)
 *   node test/run.mjs --concurrency 1 …                one file at a time (TEST_CONCURRENCY; default 4)
 *
 * Plain JavaScript on purpose: it runs before anything is compiled.
 *
 * - Clean: every project's build output is removed before `tsc -b` (scripts/clean-build.mjs), so a test deleted or
 *   renamed does not keep running from an older build, and a function file renamed in src/ is not registered twice.
 * - Side by side: most of an end-to-end file's time is waiting on hosts it started (ports, task hubs and Azurite data
 *   are each file's own), so files run CONCURRENCY at a time, the longest first (runner/testFiles.mjs). Each file's
 *   output is printed whole when it ends (runner/fileRun.mjs).
 * - Timeouts: PER_TEST_TIMEOUT_MS (default 10 minutes) for each test, enforced by the test kit's perTestTimeout,
 *   preloaded into every file's process; TEST_FILE_TIMEOUT_MS (default 30 minutes) for each file as a whole, past
 *   which the file is stopped and fails. Either way a test that never settles fails the run instead of hanging it.
 * - The end (runner/summary.mjs): what was skipped and why, known defects, the time per folder, every failing test,
 *   then the `ℹ tests / ℹ pass / ℹ fail …` lines summed over the files, last, where CI reads them. Exit code 0 only
 *   when every file run passed.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { passed, runFile } from './runner/fileRun.mjs';
import { summary } from './runner/summary.mjs';
import { committedTimes, longestFirst, QUICK_TIER, readTimes, selectFiles, writeTimes } from './runner/testFiles.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Above the slowest test's own deadlines (an end-to-end run polled to completion on a loaded machine). */
const DEFAULT_PER_TEST_TIMEOUT_MS = 10 * 60 * 1000;
/** Long enough for the slowest file (an end-to-end suite). */
const DEFAULT_FILE_TIMEOUT_MS = 30 * 60 * 1000;
/** Files at once: measured on 2 cores (BENCHMARKS.md, "The suite"); more only queue on the CPU. */
const DEFAULT_CONCURRENCY = 4;
const PER_TEST_TIMEOUT = join(root, 'testkit', 'dist', 'perTestTimeout.js');

function fail(/** @type {string} */ message, code = 2) {
    console.error(message);
    process.exit(code);
}

/** A positive whole number from the command line or the environment, or the default. */
function positive(/** @type {string} */ name, /** @type {string | undefined} */ given, /** @type {number} */ fallback) {
    const value = Number(given ?? fallback);
    if (!Number.isSafeInteger(value) || value <= 0) fail(`${name} must be a positive whole number, got ${given}`);
    return value;
}

let parsed;
try {
    parsed = parseArgs({
        allowPositionals: true,
        options: {
            quick: { type: 'boolean', default: false },
            repeat: { type: 'string' },
            concurrency: { type: 'string' },
            backend: { type: 'string' },
        },
    });
} catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\nUsage: node test/run.mjs [--quick] [--repeat N] [--concurrency N] [--backend ts|extension] [file or folder …]`);
}
const { values, positionals } = parsed;
const rounds = positive('--repeat', values.repeat, 1);
const concurrency = positive('--concurrency (TEST_CONCURRENCY)', values.concurrency ?? process.env.TEST_CONCURRENCY, DEFAULT_CONCURRENCY);
const perTestTimeout = positive('PER_TEST_TIMEOUT_MS', process.env.PER_TEST_TIMEOUT_MS, DEFAULT_PER_TEST_TIMEOUT_MS);
const fileTimeoutMs = positive('TEST_FILE_TIMEOUT_MS', process.env.TEST_FILE_TIMEOUT_MS, DEFAULT_FILE_TIMEOUT_MS);
const backends = values.backend ?? (values.quick ? QUICK_TIER.backends : process.env.TEST_BACKENDS);
if (backends !== undefined && !/^(ts|extension)(,(ts|extension))*$/.test(backends)) fail(`--backend takes ts, extension or both (ts,extension), got ${backends}`);

function build(/** @type {string} */ what, /** @type {string[]} */ args) {
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env });
    if (result.error) throw result.error;
    if (result.status !== 0) fail(`${what} failed (${result.signal ?? `exit code ${result.status}`})`, result.status ?? 1);
}
build('The clean (scripts/clean-build.mjs)', [join(root, 'scripts', 'clean-build.mjs')]);
build('The build (tsc -b)', [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-b']);
build("The views' build (scripts/build-views.mjs)", [join(root, 'scripts', 'build-views.mjs')]);

let files;
try {
    files = selectFiles(root, values.quick ? [...QUICK_TIER.files, ...positionals] : positionals);
} catch (error) {
    fail(error instanceof Error ? error.message : String(error), 1);
}
if (files.length === 0) fail('No test files (*.test.js) were found: nothing was tested.', 1);

// The real extension's .NET hosts the tests start (dozens a run) keep their first, quickly compiled code instead of
// compiling hot methods again in the background: about 1.1 s of CPU less per host in its first 12 s (BENCHMARKS.md,
// "The suite"). TC_CallCounting is a runtime knob (dotnet/runtime src/coreclr/inc/clrconfignames.h); it changes
// how fast code runs, never what it does. Tests only: bench/ and npm start run the runtime's defaults.
const DOTNET_FOR_TESTS = { DOTNET_TC_CallCounting: '0' };
const env = { ...DOTNET_FOR_TESTS, ...process.env, PER_TEST_TIMEOUT_MS: String(perTestTimeout), ...(backends === undefined ? {} : { TEST_BACKENDS: backends }) };
const times = { ...committedTimes(), ...readTimes(root) };
const ordered = longestFirst(files, times);
const queue = Array.from({ length: rounds }, (_, round) => ordered.map((file) => ({ file, round }))).flat();
console.log(
    `${files.length} test file${files.length === 1 ? '' : 's'}${rounds > 1 ? `, ${rounds} runs each` : ''}, ${concurrency} at a time` +
        `${backends === undefined ? '' : `, backends: ${backends}`}${values.quick ? ' (the quick tier; CI runs everything)' : ''}`
);

const began = performance.now();
/** @type {import('./runner/fileRun.mjs').FileRun[]} */
const runs = [];
async function slot() {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const run = await runFile({ root, ...next, perTestTimeout: PER_TEST_TIMEOUT, fileTimeoutMs, env });
        runs.push(run);
        const label = `${run.file}${rounds > 1 ? ` (run ${run.round + 1} of ${rounds})` : ''}`;
        // Each file's own count lines go: the run's sums end the output.
        const output = run.output.replace(/^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+\n/gm, '').trimEnd();
        process.stdout.write(`\n${passed(run) ? '✔' : '✖'} ━━ ${label}: ${(run.ms / 1000).toFixed(1)} s ━━\n${output}\n`);
    }
}
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, slot));
const wallMs = performance.now() - began;

writeTimes(root, Object.fromEntries(runs.filter((run) => run.round === 0).map((run) => [run.file, Math.round(run.ms)])));
process.stdout.write(summary(runs, rounds, wallMs));
const failed = runs.filter((run) => !passed(run)).length;
if (failed > 0) console.error(`The tests failed (${failed} of ${runs.length} file runs)`);
process.exit(failed > 0 ? 1 : 0);
