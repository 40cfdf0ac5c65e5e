import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GENESIS, blockDigest, blockHash, leadingZeroBits, meetsDifficulty } from '../../src/jobs/mining/hashRule';
import { scanRange } from '../../src/jobs/mining/scan';
import { findNonceSerial } from '../support/serialSearch';
import { SearchAbortedError, SearchPool } from '../../src/jobs/mining/search';
import { ThreadPool } from '../../src/jobs/offThread/threadPool';

/** The smallest nonce by brute force with the plain rule. */
function bruteForce(index: number, prev: string, difficulty: number): number {
    for (let nonce = 0; ; nonce++) {
        if (meetsDifficulty(blockDigest(index, prev, nonce), difficulty)) return nonce;
    }
}

const PREVIOUS = [GENESIS, '00000f0ae069f928c3308babadb0794eba48e7c26e4b16428bb7af9be5c2ab50', 'é✓'];

describe('scanRange (the fast kernel)', () => {
    it('hashes exactly the bytes of the rule, across digit roll-overs', () => {
        // A one-nonce range with the digest's own zero-bit count finds it; one bit more does not.
        const nonces = [0, 1, 8, 9, 10, 11, 99, 100, 999, 1000, 9999, 10000, 123456789, 9007199254740990];
        for (const prev of PREVIOUS) {
            for (const nonce of nonces) {
                const bits = leadingZeroBits(blockDigest(5, prev, nonce));
                assert.equal(scanRange(5, prev, bits, nonce, nonce + 1), nonce, `${prev} ${nonce}`);
                assert.equal(scanRange(5, prev, bits + 1, nonce, nonce + 1), undefined, `${prev} ${nonce}`);
            }
        }
    });

    it('finds the smallest nonce in a range, running through roll-overs', () => {
        for (const prev of PREVIOUS) {
            for (let difficulty = 0; difficulty <= 9; difficulty++) {
                for (const start of [0, 7, 95, 990]) {
                    let expected: number | undefined;
                    for (let nonce = start; nonce < start + 3000; nonce++) {
                        if (meetsDifficulty(blockDigest(2, prev, nonce), difficulty)) {
                            expected = nonce;
                            break;
                        }
                    }
                    assert.equal(scanRange(2, prev, difficulty, start, start + 3000), expected);
                }
            }
        }
    });

    it('agrees with brute force on the smallest nonce', () => {
        for (let difficulty = 0; difficulty <= 12; difficulty++) {
            for (const [index, prev] of [[0, GENESIS], [1, PREVIOUS[1] as string], [7, 'é✓']] as const) {
                assert.equal(findNonceSerial(index, prev, difficulty), bruteForce(index, prev, difficulty), `d=${difficulty}`);
            }
        }
    });
});

describe('SearchPool (parallel search)', () => {
    const pools: SearchPool[] = [];
    const pool = (options: ConstructorParameters<typeof SearchPool>[0]) => {
        const created = new SearchPool(options);
        pools.push(created);
        return created;
    };
    // Idle pool workers are unref'd on purpose (see the last test), so after the last test the event loop
    // can run dry before node:test (Node 20) gets to this suite's after hook, which then never runs and the
    // suite fails as "still pending". A ref'd timer keeps the loop alive until the hook has closed the pools.
    const keepAlive = setInterval(() => undefined, 1000);
    after(async () => {
        await Promise.all(pools.map((p) => p.close()));
        clearInterval(keepAlive);
    });

    it('returns what the serial search returns, with tiny chunks spread over many threads', async () => {
        const search = pool({ size: 3, firstChunk: 16, maxChunk: 64 });
        for (let difficulty = 0; difficulty <= 14; difficulty++) {
            for (const [index, prev] of [[0, GENESIS], [3, PREVIOUS[1] as string]] as const) {
                const found = await search.search({ index, previousHash: prev, difficulty });
                const nonce = findNonceSerial(index, prev, difficulty);
                assert.deepEqual(found, { nonce, hash: blockHash(index, prev, nonce) }, `d=${difficulty}`);
            }
        }
    });

    it('keeps concurrent searches apart and each one exact', async () => {
        const search = pool({ size: 2, firstChunk: 32, maxChunk: 512 });
        const requests = Array.from({ length: 8 }, (_, k) => ({ index: k, previousHash: GENESIS, difficulty: 8 + (k % 5) }));
        const results = await Promise.all(requests.map((r) => search.search(r)));
        results.forEach((found, k) => {
            const r = requests[k];
            assert.ok(r);
            assert.equal(found.nonce, findNonceSerial(r.index, r.previousHash, r.difficulty));
        });
    });

    it('searches only the range asked: hits at its first and last nonce, none below, empty ranges', async () => {
        const search = pool({ size: 3, firstChunk: 4, maxChunk: 16 });
        const at = (start: number, end: number) => search.searchRange({ index: 0, previousHash: GENESIS, difficulty: 8, start, end });
        const hit = { nonce: 339, hash: blockHash(0, GENESIS, 339) };
        assert.deepEqual(await at(339, 340), hit);
        assert.deepEqual(await at(339, 1000), hit);
        assert.deepEqual(await at(200, 340), hit);
        assert.equal(await at(0, 339), undefined);
        assert.equal(await at(5, 5), undefined);
        const next = scanRange(0, GENESIS, 8, 340, 100_000);
        assert.ok(next !== undefined);
        assert.equal((await at(340, next + 1))?.nonce, next);
        // Many chunks per range, over many ranges: the same as the kernel on one thread.
        for (const [start, end] of [[0, 97], [97, 1000], [1000, 5003], [123_456, 130_000]] as const) {
            for (const difficulty of [6, 9, 12]) {
                const found = await search.searchRange({ index: 3, previousHash: GENESIS, difficulty, start, end });
                assert.equal(found?.nonce, scanRange(3, GENESIS, difficulty, start, end), `[${start}, ${end}) d=${difficulty}`);
            }
        }
    });

    it('over consecutive ranges from 0, returns what the serial search returns', async () => {
        const search = pool({ size: 2, firstChunk: 8, maxChunk: 32 });
        for (let difficulty = 0; difficulty <= 12; difficulty++) {
            let found;
            for (let start = 0; found === undefined; start += 100) {
                found = await search.searchRange({ index: 1, previousHash: GENESIS, difficulty, start, end: start + 100 });
            }
            const nonce = findNonceSerial(1, GENESIS, difficulty);
            assert.deepEqual(found, { nonce, hash: blockHash(1, GENESIS, nonce) }, `d=${difficulty}`);
        }
    });

    it('gives the lowest range of a block every chunk first, and round-robins between blocks', async () => {
        // One thread, fixed chunks of 1024, no hit (difficulty 40): the order searches end in is the order they were served.
        const search = pool({ size: 1, firstChunk: 1024, maxChunk: 1024 });
        const ended: string[] = [];
        const range = (name: string, index: number, start: number) =>
            search.searchRange({ index, previousHash: GENESIS, difficulty: 40, start, end: start + 8 * 1024 }).then((found) => {
                assert.equal(found, undefined);
                ended.push(name);
            });
        // Ranges of one block asked for highest first, as answers to a window may come: still searched lowest first.
        await Promise.all([range('block0 [16k, 24k)', 0, 16 * 1024), range('block0 [8k, 16k)', 0, 8 * 1024), range('block0 [0, 8k)', 0, 0)]);
        assert.deepEqual(ended, ['block0 [0, 8k)', 'block0 [8k, 16k)', 'block0 [16k, 24k)']);
        // Another block (or workflow) takes turns with the first one's lowest range, so it is not held up by its ranges in flight.
        ended.length = 0;
        await Promise.all([range('block0 [0, 8k)', 0, 0), range('block0 [8k, 16k)', 0, 8 * 1024), range('block1 [0, 8k)', 1, 0)]);
        assert.deepEqual(ended.slice(2), ['block0 [8k, 16k)']);
        assert.deepEqual(ended.slice(0, 2).sort(), ['block0 [0, 8k)', 'block1 [0, 8k)']);
    });

    it('rejects bad ranges', async () => {
        const search = pool({ size: 1 });
        const request = { index: 0, previousHash: GENESIS, difficulty: 1 };
        for (const [start, end] of [[-1, 5], [5, 4], [0, 2 ** 53], [0.5, 3]] as const) {
            await assert.rejects(search.searchRange({ ...request, start, end }), RangeError, `[${start}, ${end})`);
        }
    });

    it('rejects bad requests instead of searching forever', async () => {
        const search = pool({ size: 1 });
        await assert.rejects(search.search({ index: 0, previousHash: GENESIS, difficulty: 257 }), RangeError);
        await assert.rejects(search.search({ index: -1, previousHash: GENESIS, difficulty: 1 }), RangeError);
        await assert.rejects(search.search({ index: 0, previousHash: GENESIS, difficulty: 1.5 }), RangeError);
    });

    it('turns a failing thread into a rejected search, not a hang', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'search-task-'));
        const throwing = join(dir, 'throwing.js');
        writeFileSync(throwing, "exports.runTask = () => { throw new Error('boom'); };\n");
        await assert.rejects(pool({ size: 2, scanTask: throwing }).search({ index: 0, previousHash: GENESIS, difficulty: 4 }), /Mining failed: boom/);

        const exiting = join(dir, 'exiting.js');
        writeFileSync(exiting, 'exports.runTask = () => process.exit(3);\n');
        await assert.rejects(pool({ size: 1, scanTask: exiting }).search({ index: 0, previousHash: GENESIS, difficulty: 4 }), /exit code 3/);

        const missing = join(dir, 'missing.js');
        await assert.rejects(pool({ size: 1, scanTask: missing }).search({ index: 0, previousHash: GENESIS, difficulty: 4 }), /Mining failed: Cannot find module/);
        await assert.rejects(
            pool({ threads: new ThreadPool({ size: 1, threadFile: missing }) }).search({ index: 0, previousHash: GENESIS, difficulty: 4 }),
            /Mining failed/
        );
    });

    it('replaces a failed thread and keeps serving other searches', async () => {
        // The real kernel, killing the thread on difficulty 5 only.
        const dir = mkdtempSync(join(tmpdir(), 'search-task-'));
        const flaky = join(dir, 'flaky.js');
        const scan = require.resolve('../../src/jobs/mining/scan');
        writeFileSync(
            flaky,
            `const { scanRange } = require(${JSON.stringify(scan)});\n` +
                'exports.runTask = (j) => { if (j.difficulty === 5) process.exit(5);\n' +
                '  return scanRange(j.index, j.previousHash, j.difficulty, j.start, j.end) ?? null; };\n'
        );
        const search = pool({ size: 1, scanTask: flaky });
        await assert.rejects(search.search({ index: 0, previousHash: GENESIS, difficulty: 5 }), /exit code 5/);
        assert.equal((await search.search({ index: 0, previousHash: GENESIS, difficulty: 8 })).nonce, 339);
    });

    it('stops a search when its signal aborts, and keeps serving others', async () => {
        const search = pool({ size: 2 });
        const controller = new AbortController();
        // 200 bits would take longer than the universe has left: only the abort can end it.
        const hopeless = search.search({ index: 0, previousHash: GENESIS, difficulty: 200 }, controller.signal);
        const easy = search.search({ index: 1, previousHash: GENESIS, difficulty: 12 });
        assert.equal((await easy).nonce, findNonceSerial(1, GENESIS, 12));
        controller.abort();
        await assert.rejects(hopeless, SearchAbortedError);
        assert.equal((await search.search({ index: 0, previousHash: GENESIS, difficulty: 8 })).nonce, 339);
        await assert.rejects(search.search({ index: 0, previousHash: GENESIS, difficulty: 8 }, controller.signal), SearchAbortedError);
    });

    it('never keeps a process alive once its searches are done', () => {
        const searchModule = require.resolve('../../src/jobs/mining/search');
        const script = `require(${JSON.stringify(searchModule)}).searchNonceRange({ index: 0, previousHash: 'GENESIS', difficulty: 10, start: 0, end: 1e6 }).then((r) => console.log(r.nonce));`;
        const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
        assert.equal(child.signal, null, 'the process had to be killed: a worker kept it alive');
        assert.equal(child.status, 0, child.stderr);
        assert.equal(child.stdout.trim(), String(findNonceSerial(0, GENESIS, 10)));
    });
});
