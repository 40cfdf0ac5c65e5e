/**
 * The report's templates (bench/report/) given figures a run could not take (no poll, no extension, no /proc, no
 * sample) write them in words: no NaN, Infinity or undefined, whichever figure is missing. The smoke run
 * (smoke.test.ts) checks the same on real figures; this checks the edges a smoke run may not reach, in milliseconds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@mcp-mining/testkit';
import { SUITE_TITLE, suiteSection } from '../../bench/report/document';
import { renderCompletionLag } from '../../bench/report/completionLag';
import { renderLoad } from '../../bench/report/load';
import { renderMemory } from '../../bench/report/memory';
import { renderMining } from '../../bench/report/mining';
import { renderOrchestration } from '../../bench/report/orchestration';
import { renderPastBudget } from '../../bench/report/pastBudget';
import { renderResponsiveness } from '../../bench/report/responsiveness';
import { renderScaleOut } from '../../bench/report/scaleOut';
import { renderStatusReads } from '../../bench/report/statusReads';
import { renderThroughput } from '../../bench/report/throughput';
import type { RangeCostFigures } from '../../bench/rangeCost';
import { scaleModelFigures } from '../../bench/scaleModelFigures';

const NON_NUMBER = /\bNaN\b|-?\bInfinity\b|\bundefined\b/;
const skipped = 'skipped: --smoke runs the TypeScript engine only';
const loads = { loadBefore: 1, loadAfter: 1 };

function assertWords(name: string, markdown: string): void {
    const at = NON_NUMBER.exec(markdown);
    assert.equal(at, null, `${name} writes a missing figure as ${at?.[0]}: …${markdown.slice(Math.max(0, (at?.index ?? 0) - 100), (at?.index ?? 0) + 20)}`);
}

describe('bench/report/ with figures that were not taken', () => {
    it('writes words, not NaN, Infinity or undefined, in every section', () => {
        const rangeCost: RangeCostFigures = {
            rangeSize: 1024,
            chain: { difficulty: 13, blocks: 1 },
            longChain: { difficulty: 17, blocks: 2 },
            rounds: 1,
            rows: [{ backend: 'ts', parallel: 1, recorded: { parallelRanges: undefined, rangeSize: undefined }, perRangeMs: [9], ranges: 15 }],
        };
        const sections: Array<[string, string]> = [
            ['orchestration', renderOrchestration({ ...loads, activities: 10, warmup: 2, runs: 0, samples: { azurite: [], memory: [], extension: [] }, extensionSkipped: skipped })],
            [
                'mining',
                renderMining({
                    ...loads,
                    rounds: 1,
                    secondsEach: 1,
                    pinned: false,
                    messageBytes: 76,
                    threads: 2,
                    hasOpenssl: false,
                    kernel: { openssl: [], wasm: [], crypto: [], plain: [] },
                    pool: { one: [], all: [], opensslAll: [] },
                    chainLength: 4,
                    maxChainDifficulty: 17,
                    chains: [],
                    config: { defaultDifficulty: 27, waitBudgetSeconds: 20, pollAfterSeconds: 5 },
                }),
            ],
            ['responsiveness', renderResponsiveness({ ...loads, rounds: 1, calls: 0, idle: [], loaded: [], busyCores: Number.NaN })],
            ['completionLag', renderCompletionLag({ ...loads, difficulties: [20], blockCounts: [1], rounds: 1, budgetSeconds: 45, runs: { ts: [], extension: [] }, extensionSkipped: skipped })],
            ['pastBudget', renderPastBudget({ ...loads, rounds: 1, difficulty: 23, blocks: 4, runs: { ts: [], extension: [] }, extensionSkipped: skipped })],
            ['statusReads', renderStatusReads({ ...loads, difficulties: [20], blockCounts: [1], wholeWaitMs: 2000, rows: [], skipped: [{ backend: 'extension', reason: skipped }] })],
            ['throughput', renderThroughput({ ...loads, inFlight: 4, inProcess: [], throughHost: [{ call: 'getNotFound', app: [], bare: [] }], share: undefined })],
            ['memory', renderMemory({ ...loads, count: 20, inFlight: 8, idleBytes: Number.NaN, loadedBytes: Number.NaN, startSeconds: 1, sample: { asked: 0, running: 0 } })],
            [
                'load',
                renderLoad({
                    ...loads,
                    settings: { clients: 4, difficulty: 16, waitBudgetSeconds: 1, pollIntervalMs: 500, deadlineSeconds: 240 },
                    machine: { vcpus: 2, cpuModel: 'a CPU', node: 'v20', platform: 'linux' },
                    totalMs: 900,
                    latencies: { start_mining: [], get_mining_result: [] },
                    completed: 0,
                    startedRunning: 0,
                    lost: [],
                    errors: [],
                }),
            ],
            [
                'scaleOut',
                renderScaleOut({
                    ...loads,
                    extensionSkipped: skipped,
                    rangeCost,
                    pinned: undefined,
                    model: scaleModelFigures(rangeCost, undefined, { rangeSize: 2 ** 23, parallelRanges: 4 }),
                }),
            ],
        ];
        for (const [name, markdown] of sections) assertWords(name, markdown);
        // The load section says why get_mining_result has no latency, as a smoke run's often has not.
        assert.match(sections.find(([name]) => name === 'load')?.[1] ?? '', /not measured: no poll in this run/);
    });
});

describe("BENCHMARKS.md's hand-written suite section", () => {
    it('is found in the file as it stands, and a full run carries it over whole', () => {
        const doc = readFileSync(join(repoRoot, 'BENCHMARKS.md'), 'utf8');
        const suite = suiteSection(doc);
        assert.ok(suite?.startsWith(`${SUITE_TITLE}\n`), 'BENCHMARKS.md has "## The suite"');
        assert.equal(suiteSection(`# B\n\n## mining\n\nx\n\n${suite}\n\n## load\n\ny\n`), suite);
        assert.equal(suiteSection('# B\n\n## mining\n'), undefined);
    });
});
