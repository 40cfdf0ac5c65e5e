import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvocationHolds } from '../worker/holds';

/** The holds' bookkeeping: a held function's invocations wait, are released oldest first, and a dropped one never runs. */

test('a held function waits; release lets the oldest run; stop lets all run and holds no more', async () => {
    const holds = new InvocationHolds();
    assert.equal(await holds.wait('free', 'Other'), true, 'a function not held runs at once');
    holds.hold('MineBlock');
    const ran: string[] = [];
    const waits = ['a', 'b', 'c'].map((id) => holds.wait(id, 'MineBlock').then((go) => go && ran.push(id)));
    assert.deepEqual(holds.state(), {
        holding: ['MineBlock'],
        held: ['a', 'b', 'c'].map((invocationId) => ({ invocationId, functionName: 'MineBlock' })),
    });
    assert.deepEqual(holds.release('MineBlock', 1), ['a']);
    await waits[0];
    assert.deepEqual(ran, ['a']);
    holds.drop('b');
    await waits[1];
    assert.deepEqual(ran, ['a'], 'a dropped invocation never runs');
    assert.deepEqual(holds.stop('MineBlock'), ['c']);
    await Promise.all(waits);
    assert.deepEqual(ran, ['a', 'c']);
    assert.equal(await holds.wait('d', 'MineBlock'), true, 'after stop, nothing waits');
    assert.deepEqual(holds.state(), { holding: [], held: [] });
});
