import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { unlessAvailable } from '@mcp-mining/testkit';

/** The nice value of this process's main thread (on Linux, the thread whose id is the process id). */
const mainThreadNice = () => getPriority(process.pid);

describe('lowerThreadPriority', () => {
    it('lowers the calling worker thread only, not the process', { skip: unlessAvailable(process.platform === 'linux', 'per-thread priorities are set on Linux only') }, async () => {
        const before = mainThreadNice();
        const module = require.resolve('../../src/jobs/offThread/threadPriority');
        // A sibling worker, started before the one that lowers its priority and asked for its nice value after.
        const sibling = new Worker(
            "const { parentPort } = require('node:worker_threads');" +
                "const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());" +
                "parentPort.postMessage('ready');" +
                "parentPort.on('message', () => parentPort.postMessage(require('node:os').getPriority(tid)));",
            { eval: true }
        );
        const siblingReady = new Promise((resolve, reject) => {
            sibling.once('message', resolve);
            sibling.once('error', reject);
        });
        await siblingReady;
        const code =
            `const { lowerThreadPriority } = require(${JSON.stringify(module)});` +
            "const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());" +
            'const lowered = lowerThreadPriority(7);' +
            "require('node:worker_threads').parentPort.postMessage({ lowered, nice: require('node:os').getPriority(tid) });";
        const worker = new Worker(code, { eval: true });
        const answer = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
        });
        await worker.terminate();
        const siblingNice = await new Promise<number>((resolve, reject) => {
            sibling.once('message', resolve);
            sibling.once('error', reject);
            sibling.postMessage('nice?');
        });
        await sibling.terminate();

        // The worker now runs at nice 7 (or stays at a higher one it inherited)...
        assert.deepEqual(answer, { lowered: true, nice: Math.max(7, before) });
        // ...while the main thread and the other worker keep the priority they had.
        assert.equal(mainThreadNice(), before, 'the main thread kept its priority');
        assert.equal(siblingNice, before, 'another worker kept its priority');
    });
});
