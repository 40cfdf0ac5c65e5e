/**
 * The rule DEFAULT_DIFFICULTY follows, and the fixed line of BENCHMARKS.md that carries its answer
 * (test/infra/defaultDifficulty.test.ts holds src/config.ts's default to that line).
 *
 * The rule: a default run (the default chain, CHAIN_LENGTH blocks from GENESIS) on a 2-core machine must
 * outlast the default wait budget, so that "mine a few blocks" shows the poll path, but not by minutes:
 * it must end within MAX_OVERRUN_SECONDS after the budget, a handful of polls. Among the difficulties whose
 * run outlasts the budget, the default is the one nearest two budgets (by ratio), the middle of that window.
 */

/** How long a default run may go on past the budget: a short poll loop, not minutes of it. */
export const MAX_OVERRUN_SECONDS = 60;

/** The line of BENCHMARKS.md that states the rule's answer; only the number after it may change. */
export const RULE_LINE_PREFIX = 'DEFAULT_DIFFICULTY by the rule: ';

export interface DifficultyRun {
    difficulty: number;
    /** The default run's length on two dedicated cores, in seconds. */
    seconds: number;
}

export interface RuleAnswer<T extends DifficultyRun> {
    chosen: T;
    /** The chosen run outlasts the budget and ends at most MAX_OVERRUN_SECONDS after it. */
    met: boolean;
}

/** The rule's difficulty among `runs` (sorted or not) for a wait budget of `budgetSeconds`. */
export function chooseDefaultDifficulty<T extends DifficultyRun>(runs: readonly T[], budgetSeconds: number): RuleAnswer<T> {
    if (runs.length === 0) throw new Error('no difficulty to choose from');
    const outlasting = runs.filter((r) => r.seconds > budgetSeconds);
    // None outlasts the budget: the longest is the nearest to doing so.
    const pool = outlasting.length > 0 ? outlasting : [...runs].sort((a, b) => b.seconds - a.seconds).slice(0, 1);
    const distance = (r: T) => Math.abs(Math.log(r.seconds / (2 * budgetSeconds)));
    const chosen = pool.reduce((best, r) => (distance(r) < distance(best) ? r : best));
    return { chosen, met: chosen.seconds > budgetSeconds && chosen.seconds <= budgetSeconds + MAX_OVERRUN_SECONDS };
}

export function ruleLine(difficulty: number): string {
    return `${RULE_LINE_PREFIX}${difficulty}`;
}

/** The difficulty the rule line of a BENCHMARKS.md states, or undefined without one. */
export function ruleDifficultyIn(markdown: string): number | undefined {
    const line = markdown.split('\n').find((l) => l.startsWith(RULE_LINE_PREFIX));
    const value = line === undefined ? Number.NaN : Number(line.slice(RULE_LINE_PREFIX.length).trim());
    return Number.isInteger(value) ? value : undefined;
}
