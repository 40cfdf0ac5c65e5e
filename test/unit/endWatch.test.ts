import { within } from '@mcp-mining/testkit';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { watchForEnd } from '../../src/jobs/endWatch';
import { blockSuperseded } from '../../src/jobs/mining/contracts';

/** The watch's timers are unref'd on purpose, so a test must keep the process alive while it waits. */
/** The abort waited for, within a deadline of its own: a watch that never aborts fails the test in seconds. */
function whileAlive<T>(waiting: Promise<T>): Promise<T> {
    return within(waiting, 'the watch aborts', 10_000);
}

describe('watchForEnd', () => {
    it('aborts once the orchestration is terminal, reading through errors and unknowns', async () => {
        const answers: Array<string | undefined | Error> = ['Pending', new Error('backend hiccup'), undefined, 'Running', 'Terminated'];
        let reads = 0;
        const watch = watchForEnd(async () => {
            const answer = answers[reads++];
            if (answer instanceof Error) throw answer;
            return answer;
        }, 1);
        await whileAlive(once(watch.signal, 'abort'));
        assert.equal(reads, 5);
        watch.stop();
    });

    for (const terminal of ['Completed', 'Failed', 'Canceled']) {
        it(`treats ${terminal} as ended`, async () => {
            const watch = watchForEnd(async () => terminal, 1);
            await whileAlive(once(watch.signal, 'abort'));
            watch.stop();
        });
    }

    it('reads at once, so work that waited in the queue for a workflow already ended stops before an interval', async () => {
        const started = Date.now();
        const watch = watchForEnd(async () => 'Terminated', 60_000);
        await whileAlive(once(watch.signal, 'abort'));
        assert.ok(Date.now() - started < 30_000, 'aborted only after the interval');
        watch.stop();
    });

    it('reads no more once stopped', async () => {
        let reads = 0;
        const watch = watchForEnd(async () => {
            reads++;
            return 'Running';
        }, 1);
        while (reads < 2) await new Promise((resolve) => setTimeout(resolve, 2));
        watch.stop();
        const seen = reads;
        await new Promise((resolve) => setTimeout(resolve, 20));
        assert.ok(reads <= seen + 1, 'at most the read already in flight');
        assert.equal(watch.signal.aborted, false);
    });

    it('aborts once the custom status says the work was overtaken, and not before; the runtime status still counts', async () => {
        const superseded = blockSuperseded(2);
        assert.ok(superseded);
        const answers = [
            { runtimeStatus: 'Running', customStatus: { blocks_done: 1, blocks_total: 4 } },
            { runtimeStatus: 'Running' },
            { runtimeStatus: 'Running', customStatus: 'not progress' },
            { runtimeStatus: 'Running', customStatus: { blocks_done: 2, blocks_total: 4 } },
            { runtimeStatus: 'Running', customStatus: { blocks_done: 3, blocks_total: 4 } },
        ];
        let reads = 0;
        const watch = watchForEnd(async () => answers[reads++], 1, superseded);
        await whileAlive(once(watch.signal, 'abort'));
        assert.equal(reads, 5, 'block 2 is superseded only when blocks_done is above 2');
        watch.stop();

        const ended = watchForEnd(async () => ({ runtimeStatus: 'Terminated', customStatus: { blocks_done: 0, blocks_total: 4 } }), 1, superseded);
        await whileAlive(once(ended.signal, 'abort'));
        ended.stop();
        assert.equal(blockSuperseded(undefined), undefined);
    });
});
