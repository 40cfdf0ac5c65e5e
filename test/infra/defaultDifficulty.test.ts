/**
 * DEFAULT_DIFFICULTY is a documented decision (docs/how-it-works.md, "Defaults and why"): its rule
 * (bench/rules/defaultDifficulty.ts), applied to the default chain's runs on two cores as BENCHMARKS.md's
 * "Mining" records them, must hold for src/config.ts's default, and the docs' table must state that default and
 * the figures it rests on. A new measurement that moves the rule's answer fails here until the setting (and
 * infra/main.bicep, and the docs) follows it; the benchmark itself never picks the difficulty.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECORDED_ATTEMPTS } from '../../bench/recordedAttempts';
import { checkDefaultDifficulty, MAX_OVERRUN_SECONDS, nearestOutlasting, runsOnTwoCores } from '../../bench/rules/defaultDifficulty';
import { parseConfig } from '../../src/config';
import { documentedDefault, recordedDifficultyRuns } from './benchmarkFigures';

const defaults = parseConfig({ TASKHUB_NAME: 'probe' });
const budget = defaults.waitBudgetSeconds;

describe('DEFAULT_DIFFICULTY: the documented decision, its rule and the figures in BENCHMARKS.md', () => {
    it("src/config.ts's default meets the rule with the runs BENCHMARKS.md records", () => {
        const runs = recordedDifficultyRuns();
        assert.ok(runs.length > 0, 'BENCHMARKS.md, Mining: no table of the default chain by difficulty');
        const verdict = checkDefaultDifficulty(defaults.defaultDifficulty, runs, budget);
        const answer = nearestOutlasting(runs, budget);
        assert.ok(
            verdict.met,
            `DEFAULT_DIFFICULTY ${defaults.defaultDifficulty} does not meet its rule with BENCHMARKS.md's figures ` +
                `(in the window: ${verdict.inWindow}; nearest two budgets: ${answer?.difficulty} at ${answer?.seconds} s): ` +
                'change the setting (src/config.ts, infra/main.bicep, the docs) or the rule in docs/how-it-works.md, "Defaults and why"'
        );
    });

    it("BENCHMARKS.md's table is the recorded chain", () => {
        for (const run of recordedDifficultyRuns()) {
            assert.equal(run.attempts, RECORDED_ATTEMPTS[run.difficulty], `BENCHMARKS.md, Mining: total_attempts at ${run.difficulty}`);
        }
    });

    it('docs/how-it-works.md states the default and the figures it rests on', () => {
        const row = documentedDefault('DEFAULT_DIFFICULTY');
        assert.equal(Number(row.value), defaults.defaultDifficulty, 'the documented default is not src/config.ts\'s');
        const own = recordedDifficultyRuns().find((r) => r.difficulty === defaults.defaultDifficulty);
        assert.ok(own, `BENCHMARKS.md, Mining: no row for ${defaults.defaultDifficulty}`);
        assert.ok(row.figures.includes(`${own.seconds.toFixed(1)} s`), `the documented figures do not quote ${own.seconds.toFixed(1)} s, BENCHMARKS.md's run at ${own.difficulty}`);
        assert.ok(row.figures.includes(own.attempts.toLocaleString('en-US')), 'the documented figures do not quote the recorded attempts');
        assert.ok(row.rule.includes(`${budget} s`) && row.rule.includes(`${MAX_OVERRUN_SECONDS} s`), 'the documented rule does not state the budget and the overrun');
    });

    it('the rule takes the outlasting run nearest two budgets, and refuses one that ends too late', () => {
        const runs = (rate: number) => runsOnTwoCores(rate);
        const meeting = (rate: number) => runs(rate).filter((r) => checkDefaultDifficulty(r.difficulty, runs(rate), budget).met).map((r) => r.difficulty);
        // Two cores at 4.57 MH/s each: 27 takes 47 s (met), 26 only 24 s, 28 five minutes.
        assert.deepEqual(meeting(4.57e6), [27]);
        // Cores half as fast: 25 (37 s) is nearer two budgets than 26 (49 s); 27 (95 s) would end past the overrun allowed.
        assert.deepEqual(meeting(4.57e6 / 2), [25]);
        const slow = checkDefaultDifficulty(27, runs(4.57e6 / 2), budget);
        assert.deepEqual([slow.inWindow, slow.nearer?.difficulty], [false, 25]);
        // Nothing outlasts the budget: nothing meets it.
        assert.deepEqual(meeting(1e12), []);
        // Only runs far past the budget: none meets it.
        const tooSlow = [
            { difficulty: 30, seconds: budget + MAX_OVERRUN_SECONDS + 1 },
            { difficulty: 31, seconds: 1e4 },
        ];
        assert.equal(checkDefaultDifficulty(30, tooSlow, budget).met, false);
    });
});
