import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';

describe('lowerThreadPriority', () => {
    it('lowers the calling worker thread only, not the process', { skip: process.platform !== 'linux' }, async () => {
        const module = require.resolve('../../src/mining/threadPriority');
        const code =
            `const { lowerThreadPriority } = require(${JSON.stringify(module)});` +
            "const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());" +
            "const lowered = lowerThreadPriority(7);" +
            "require('node:worker_threads').parentPort.postMessage({ lowered, nice: require('node:os').getPriority(tid) });";
        const worker = new Worker(code, { eval: true });
        const answer = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
        });
        await worker.terminate();
        assert.deepEqual(answer, { lowered: true, nice: Math.max(7, getPriority()) });
        assert.equal(getPriority(), getPriority(process.pid));
    });
});
