import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { SearchAbortedError } from '../../src/jobs/mining/search';
import { DurableHttpError } from '../../src/workflow/durableHttpError';
import { watchForEnd } from '../../src/jobs/endWatch';
import { mineBlockActivity } from '../../src/jobs/mining/mineBlockActivity';
import { GENESIS } from '../../src/jobs/mining/hashRule';
import { within } from '@mcp-mining/testkit';

/** The small leaks: a search whose workflow was purged stops, and a stopped search is no failure. */

describe('MineBlock stopped by the end of its workflow', () => {
    it('stops watching, and stops the search, once the instance is gone (404)', async () => {
        const keepAlive = setInterval(() => undefined, 1000);
        try {
            let reads = 0;
            const watch = watchForEnd(async () => {
                reads++;
                throw new DurableHttpError('status read', 404);
            }, 1);
            await within(once(watch.signal, 'abort'), 'the watch stops once the instance is gone');
            await new Promise((resolve) => setTimeout(resolve, 20));
            assert.equal(reads, 1);
            watch.stop();
        } finally {
            clearInterval(keepAlive);
        }
    });

    it('keeps watching through other failures (a 503 is no reason to stop work)', async () => {
        const keepAlive = setInterval(() => undefined, 1000);
        try {
            let reads = 0;
            const watch = watchForEnd(async () => {
                reads++;
                if (reads < 3) throw new DurableHttpError('status read', 503);
                return 'Running';
            }, 1);
            while (reads < 4) await new Promise((resolve) => setTimeout(resolve, 2));
            assert.equal(watch.signal.aborted, false);
            watch.stop();
        } finally {
            clearInterval(keepAlive);
        }
    });

    it('answers a well-formed not-found for its range instead of failing when stopped', async () => {
        const stop = new AbortController();
        const activity = mineBlockActivity(32, async (_r, signal) => {
            stop.abort();
            if (signal?.aborted) throw new SearchAbortedError();
            return undefined;
        });
        const input = { index: 0, previous_hash: GENESIS, difficulty: 30, start: 0, end: 1000 };
        assert.deepEqual(await activity(input, stop.signal), { found: false, start: 0, end: 1000 });
    });

    it('still fails when the search fails for any other reason', async () => {
        const activity = mineBlockActivity(32, async () => {
            throw new Error('worker crashed');
        });
        await assert.rejects(activity({ index: 0, previous_hash: GENESIS, difficulty: 3, start: 0, end: 10 }, new AbortController().signal), /worker crashed/);
    });
});
