import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { until } from '@mcp-mining/testkit';
import { ThreadPool } from '../../src/jobs/offThread/threadPool';

/**
 * The thread pool both jobs run their CPU-bound work on (src/jobs/offThread/): any task module's runTask, at most
 * `size` at once in the order they came, a task's error or a thread's death is that task's rejection only, and
 * an idle pool keeps no process alive.
 */

const dir = mkdtempSync(join(tmpdir(), 'thread-pool-'));
const task = (name: string, body: string) => {
    const file = join(dir, `${name}.js`);
    writeFileSync(file, body);
    return file;
};
// Busy-waits `ms`, then answers its tag.
const SLOW = task(
    'slow',
    'exports.runTask = ({ ms, tag }) => { const from = Date.now(); while (Date.now() - from < ms); return { tag }; };\n'
);
// Marks its cell started (1), then blocks until the test releases it (2): which tasks run is read where the pool put
// them, never from the threads' clocks. Answers its tag and its thread.
const GATED = task(
    'gated',
    "const { threadId } = require('node:worker_threads');\n" +
        'exports.runTask = ({ cells, tag }) => { const a = new Int32Array(cells); Atomics.store(a, tag, 1); Atomics.notify(a, tag); ' +
        'while (Atomics.load(a, tag) !== 2) Atomics.wait(a, tag, 1); return { tag, threadId }; };\n'
);
const DOUBLE = task('double', 'exports.runTask = async (n) => 2 * n;\n');
const THROWS = task('throws', "exports.runTask = () => { throw new Error('no such segment'); };\n");
const EXITS = task('exits', 'exports.runTask = () => process.exit(7);\n');

describe('ThreadPool', () => {
    const pools: ThreadPool[] = [];
    const pool = (size: number) => {
        const created = new ThreadPool({ size, nice: 0 });
        pools.push(created);
        return created;
    };
    // Idle threads are unref'd; a ref'd timer keeps the loop alive until the after hook has closed the pools (Node 20).
    const keepAlive = setInterval(() => undefined, 1000);
    after(async () => {
        await Promise.all(pools.map((p) => p.close()));
        clearInterval(keepAlive);
    });

    it('runs any task module, sync or async, and answers its value', async () => {
        const threads = pool(2);
        assert.equal(await threads.run(DOUBLE, 21), 42);
        assert.equal((await threads.run<{ tag: string }>(SLOW, { ms: 1, tag: 'a' })).tag, 'a');
    });

    it('runs at most `size` tasks at once, the rest in the order they came', async () => {
        const threads = pool(2);
        const TASKS = 6;
        const cells = new Int32Array(new SharedArrayBuffer(4 * TASKS));
        const state = () => Array.from(cells);
        const ran = Array.from({ length: TASKS }, (_, tag) => threads.run<{ tag: number; threadId: number }>(GATED, { cells: cells.buffer, tag }));
        // The pool hands out tasks as they come: two to threads at once, four wait.
        assert.equal(threads.running, 2);
        assert.equal(threads.busy, TASKS);
        await until(() => cells[0] === 1 && cells[1] === 1, 'tasks 0 and 1 started');
        assert.deepEqual(state(), [1, 1, 0, 0, 0, 0], 'only the first two started');
        // Each release frees one thread, which takes the oldest task that waits, and only that one.
        for (let done = 0; done + 2 < TASKS; done++) {
            Atomics.store(cells, done, 2);
            Atomics.notify(cells, done);
            await until(() => cells[done + 2] === 1, `task ${done + 2} started after task ${done} ended`);
            assert.deepEqual(state(), Array.from({ length: TASKS }, (_, i) => (i <= done ? 2 : i <= done + 2 ? 1 : 0)), `after task ${done} ended`);
            assert.equal(threads.running, 2);
        }
        for (const tag of [TASKS - 2, TASKS - 1]) {
            Atomics.store(cells, tag, 2);
            Atomics.notify(cells, tag);
        }
        const answers = await Promise.all(ran);
        assert.deepEqual(answers.map((a) => a.tag), [0, 1, 2, 3, 4, 5]);
        assert.equal(new Set(answers.map((a) => a.threadId)).size, 2, 'two threads did the work');
        assert.equal(threads.running, 0);
    });

    it('a task that throws rejects with its message; the thread goes on', async () => {
        const threads = pool(1);
        await assert.rejects(threads.run(THROWS, null), /^Error: no such segment$/);
        assert.equal(await threads.run(DOUBLE, 4), 8);
    });

    it('a thread that dies rejects its task only, and is replaced for the tasks that wait', async () => {
        const threads = pool(1);
        const dying = threads.run(EXITS, null);
        const waiting = threads.run(DOUBLE, 5);
        await assert.rejects(dying, /Worker thread stopped unexpectedly \(exit code 7\)/);
        assert.equal(await waiting, 10);
    });

    it('a task module that cannot be loaded is that task\'s error', async () => {
        await assert.rejects(pool(1).run(join(dir, 'missing.js'), null), /Cannot find module/);
    });

    it('close rejects the tasks that wait, and any run after it', async () => {
        const threads = new ThreadPool({ size: 1, nice: 0 });
        const running = assert.rejects(threads.run(SLOW, { ms: 200, tag: 'x' }), /closed/);
        const waiting = assert.rejects(threads.run(DOUBLE, 1), /closed/);
        await threads.close();
        await Promise.all([running, waiting]);
        await assert.rejects(threads.run(DOUBLE, 1), /closed/);
    });

    it('keeps no process alive once its tasks are done', () => {
        const module = require.resolve('../../src/jobs/offThread/threadPool');
        const script = `require(${JSON.stringify(module)}).sharedThreadPool().run(${JSON.stringify(DOUBLE)}, 3).then((n) => console.log(n));`;
        const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
        assert.equal(child.signal, null, 'the process had to be killed: a thread kept it alive');
        assert.equal(child.status, 0, child.stderr);
        assert.equal(child.stdout.trim(), '6');
    });
});
