import { afterEach, beforeEach } from 'node:test';

/**
 * A per-test time limit, preloaded into every test file's process by test/run.mjs (`--require`): a test that
 * has not finished after PER_TEST_TIMEOUT_MS stops its file's process with exit code 1, which Node's runner
 * reports as a failed file (`ℹ fail`), naming the test here on stderr. Node 20's own `--test-timeout` only
 * bounds each file as a whole, and reports a file stopped that way as cancelled rather than failed.
 *
 * Only the runner's own process runs with `--test` (it does not pass that flag on to the file processes it
 * starts), so there this does nothing.
 */

const limitMs = Number(process.env.PER_TEST_TIMEOUT_MS);

if (!process.execArgv.includes('--test') && Number.isSafeInteger(limitMs) && limitMs > 0) {
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
