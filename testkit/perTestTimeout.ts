import { afterEach, beforeEach } from 'node:test';
import { isMainThread } from 'node:worker_threads';

/**
 * A per-test time limit, preloaded into every test file's process by test/run.mjs (`--require`): a test that
 * has not finished after PER_TEST_TIMEOUT_MS stops its file's process with exit code 1, which Node's runner
 * reports as a failed file (`ℹ fail`), naming the test here on stderr. Node 20's own `--test-timeout` only
 * bounds each file as a whole, and reports a file stopped that way as cancelled rather than failed.
 *
 * Only in a test file's own main thread: a worker thread inherits the preload with the process's flags, and hooks
 * set there would start a second test harness whose reporters truncate the file's result file
 * (test/runner/fileRun.mjs). And not in a `node --test` parent process, which runs no tests itself.
 */

const limitMs = Number(process.env.PER_TEST_TIMEOUT_MS);

if (isMainThread && !process.execArgv.includes('--test') && Number.isSafeInteger(limitMs) && limitMs > 0) {
    const timers = new Map<unknown, NodeJS.Timeout>();
    beforeEach((t) => {
        const timer = setTimeout(() => {
            process.stderr.write(`\n✖ The test "${t.name}" did not finish within ${limitMs} ms (PER_TEST_TIMEOUT_MS): stopping its file.\n`);
            process.exit(1);
        }, limitMs);
        // The limit must not keep a finished file's process alive.
        timer.unref();
        timers.set(t, timer);
    });
    afterEach((t) => {
        clearTimeout(timers.get(t));
        timers.delete(t);
    });
}
