/**
 * DEFAULT_DIFFICULTY follows the rule BENCHMARKS.md measures it by (bench/difficultyRule.ts): the bench writes
 * the rule's answer into a fixed line of its "Mining" section, and src/config.ts's default must be that number.
 * A new measurement that moves the answer fails here until the setting (and infra/main.bicep) follows it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECORDED_ATTEMPTS } from '../../bench/mining';
import { chooseDefaultDifficulty, MAX_OVERRUN_SECONDS, RULE_LINE_PREFIX, ruleDifficultyIn } from '../../bench/difficultyRule';
import { parseConfig } from '../../src/config';
import { readRepoFile } from './files';

const defaults = parseConfig({ TASKHUB_NAME: 'probe' });

describe('DEFAULT_DIFFICULTY and the rule in BENCHMARKS.md', () => {
    it('BENCHMARKS.md states the rule\'s answer, and src/config.ts defaults to it', () => {
        const stated = ruleDifficultyIn(readRepoFile('BENCHMARKS.md'));
        assert.notEqual(stated, undefined, `BENCHMARKS.md has no line "${RULE_LINE_PREFIX}<n>": regenerate it with npm run bench`);
        assert.equal(
            defaults.defaultDifficulty,
            stated,
            `src/config.ts defaults DEFAULT_DIFFICULTY to ${defaults.defaultDifficulty}, the measured rule (BENCHMARKS.md) to ${String(stated)}`
        );
    });

    it('the rule picks the outlasting run nearest two budgets, and says when it ends too late', () => {
        const runs = (rate: number) => Object.entries(RECORDED_ATTEMPTS).map(([d, attempts]) => ({ difficulty: Number(d), seconds: attempts / rate }));
        const budget = defaults.waitBudgetSeconds;
        // Two cores at 4.6 MH/s each: 27 takes 47 s (met), 26 only 24 s, 28 five minutes.
        const atRecorded = chooseDefaultDifficulty(runs(2 * 4.57e6), budget);
        assert.deepEqual([atRecorded.chosen.difficulty, atRecorded.met], [27, true]);
        // Cores half as fast: 25 (37 s) is nearer two budgets than 26 (49 s); 27 (95 s) would end past the overrun allowed.
        const slower = chooseDefaultDifficulty(runs(4.57e6), budget);
        assert.deepEqual([slower.chosen.difficulty, slower.met], [25, true]);
        // Nothing outlasts the budget: the longest run, and the rule says it is missed.
        const tooFast = chooseDefaultDifficulty(runs(1e12), budget);
        assert.deepEqual([tooFast.chosen.difficulty, tooFast.met], [28, false]);
        // Only runs far past the budget: the shortest of them, missed.
        const tooSlow = chooseDefaultDifficulty([{ difficulty: 30, seconds: budget + MAX_OVERRUN_SECONDS + 1 }, { difficulty: 31, seconds: 1e4 }], budget);
        assert.deepEqual([tooSlow.chosen.difficulty, tooSlow.met], [30, false]);
    });
});
