/**
 * The rule DEFAULT_DIFFICULTY follows (docs/how-it-works.md, "Defaults and why"; test/infra/defaultDifficulty.test.ts
 * holds src/config.ts's default to it with the figures BENCHMARKS.md records). The bench only reports whether the
 * default still meets it with a run's own figures; it never picks a difficulty.
 *
 * The rule: a default run (the default chain, CHAIN_LENGTH blocks from GENESIS) on a 2-core machine must
 * outlast the default wait budget, so that "mine a few blocks" shows the poll path, but not by minutes:
 * it must end within MAX_OVERRUN_SECONDS after the budget, a handful of polls. Among the difficulties whose
 * run outlasts the budget, the default is the one nearest two budgets (by ratio), the middle of that window.
 */
import { RECORDED_ATTEMPTS } from '../recordedAttempts';

/** How long a default run may go on past the budget: a short poll loop, not minutes of it. */
export const MAX_OVERRUN_SECONDS = 60;

export interface DifficultyRun {
    difficulty: number;
    /** The default run's length on two dedicated cores, in seconds. */
    seconds: number;
}

/**
 * The default run at every recorded difficulty on two dedicated cores, each at `kernelRate` (the one-thread
 * kernel rate per CPU second, which the load of a shared machine does not move).
 */
export function runsOnTwoCores(kernelRate: number): Array<DifficultyRun & { attempts: number }> {
    return Object.entries(RECORDED_ATTEMPTS).map(([d, attempts]) => ({ difficulty: Number(d), attempts, seconds: attempts / (2 * kernelRate) }));
}

/** How far a run is from two budgets, by ratio. */
const distance = (run: DifficultyRun, budgetSeconds: number) => Math.abs(Math.log(run.seconds / (2 * budgetSeconds)));

/** The run that outlasts the budget nearest two budgets, or undefined when none outlasts it. */
export function nearestOutlasting<T extends DifficultyRun>(runs: readonly T[], budgetSeconds: number): T | undefined {
    return runs
        .filter((r) => r.seconds > budgetSeconds)
        .reduce<T | undefined>((best, r) => (best === undefined || distance(r, budgetSeconds) < distance(best, budgetSeconds) ? r : best), undefined);
}

export interface DifficultyVerdict<T extends DifficultyRun> {
    /** The difficulty meets the rule: its run is in the window and no outlasting run is nearer two budgets. */
    met: boolean;
    /** The difficulty's own run, undefined when `runs` has none. */
    run: T | undefined;
    /** Its run outlasts the budget and ends at most MAX_OVERRUN_SECONDS after it. */
    inWindow: boolean;
    /** An outlasting run nearer two budgets than the difficulty's, when there is one. */
    nearer: T | undefined;
}

/** Whether `difficulty` meets the rule among `runs` for a wait budget of `budgetSeconds`. */
export function checkDefaultDifficulty<T extends DifficultyRun>(difficulty: number, runs: readonly T[], budgetSeconds: number): DifficultyVerdict<T> {
    const run = runs.find((r) => r.difficulty === difficulty);
    const inWindow = run !== undefined && run.seconds > budgetSeconds && run.seconds <= budgetSeconds + MAX_OVERRUN_SECONDS;
    const nearest = nearestOutlasting(runs, budgetSeconds);
    const nearer = nearest !== undefined && run !== undefined && distance(nearest, budgetSeconds) < distance(run, budgetSeconds) ? nearest : undefined;
    return { met: inWindow && nearer === undefined, run, inWindow, nearer };
}
