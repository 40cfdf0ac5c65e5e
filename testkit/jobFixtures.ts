import assert from 'node:assert/strict';
import { resultProblems, type Mined } from './chainCheck';
import { PRIMES_BELOW } from './primeCounts';

/**
 * What the e2e contract tests need to know of one job, so the same tests (inline, past the budget, poll,
 * cancel, bounds, not_found) run once per job: its tools, arguments that finish inline, arguments that
 * outlast the wait budget, arguments that run long enough to cancel, and a checker of a result that
 * recomputes it independently of the app.
 */
export interface JobFixture {
    /** The job's name in the registry (src/jobs/index.ts). */
    job: string;
    tools: { start: string; get: string; cancel: string };
    /** The scheme of its workflow resource, `{scheme}://workflows/{id}`. */
    scheme: string;
    /** Finishes within the default wait budget (20 s) however busy the machine: milliseconds of work. */
    inline: Record<string, unknown>;
    /**
     * Seconds of work: never done before a start with WAIT_BUDGET_SECONDS=0 answers (it reads no status), and
     * polled to its end quickly even on a loaded machine.
     */
    pastBudget: Record<string, unknown>;
    /** Runs for minutes (within MAX_WORK): for cancel. */
    long: Record<string, unknown>;
    /** A run of a few seconds, as a task, and the statusMessage of its task once completed. */
    task: { args: Record<string, unknown>; completedMessage: string };
    /** Two quick runs with different arguments, for idempotency keys. */
    keyed: [Record<string, unknown>, Record<string, unknown>];
    /** Fails the test unless `result` is right for `args`. */
    check(result: unknown, args: Record<string, unknown>): void;
    /** The progress total a start of `args` reports. */
    progressTotal(args: Record<string, unknown>): number;
    /**
     * What a start's answer adds to the get tool's for the same workflow: the work it committed (mining:
     * expected_attempts) and its hard bounds at the default settings (max_attempts, time_limit_seconds).
     */
    cost(args: Record<string, unknown>): Record<string, number>;
    /** Arguments out of bounds, and the message that names the argument and its bound. */
    outOfBounds: Array<[Record<string, unknown>, RegExp]>;
    /** The not_found status's texts. */
    notFound: { error: string; next: string };
    /** An orchestration input whose activity fails, started through the Durable API. */
    failing: { orchestrator: string; input: unknown };
}

/** MAX_WORKFLOW_SECONDS' default (docs/contract.md), which every start's answer states. */
const DEFAULT_TIME_LIMIT_SECONDS = 7200;

export const MINING_FIXTURE: JobFixture = {
    job: 'mining',
    tools: { start: 'start_mining', get: 'get_mining_result', cancel: 'cancel_mining' },
    scheme: 'mining',
    inline: { difficulty: 8, blocks: 3 },
    // 12.6 M expected attempts: about a second on two idle cores.
    pastBudget: { difficulty: 22, blocks: 3 },
    long: { difficulty: 32, blocks: 4 },
    task: { args: { difficulty: 18, blocks: 3 }, completedMessage: 'Mined all 3 blocks' },
    keyed: [
        { difficulty: 4, blocks: 1 },
        { difficulty: 5, blocks: 1 },
    ],
    check(result, args) {
        assert.deepEqual(resultProblems(result as Mined, Number(args.difficulty), Number(args.blocks), 12), []);
    },
    progressTotal: (args) => Number(args.blocks),
    cost: (args) => {
        const expected = Number(args.blocks) * 2 ** Number(args.difficulty);
        // docs/contract.md: at most 16 × the expected attempts, and MAX_WORKFLOW_SECONDS.
        return { expected_attempts: expected, max_attempts: 16 * expected, time_limit_seconds: DEFAULT_TIME_LIMIT_SECONDS };
    },
    outOfBounds: [
        [{ difficulty: 999, blocks: 1 }, /difficulty.*0.*32/],
        [{ difficulty: 1, blocks: 0 }, /blocks.*1.*16/],
        [{ difficulty: 1, blocks: 1, color: 'red' }, /unknown argument "color": the tool takes difficulty, blocks, idempotency_key/],
    ],
    notFound: { error: 'No mining workflow has this id.', next: 'Do not poll this id again. Call start_mining to start a new workflow.' },
    // MineBlock refuses an out-of-range difficulty.
    failing: { orchestrator: 'MineChain', input: { difficulty: 300, blocks: 1 } },
};

export const PRIME_COUNT_FIXTURE: JobFixture = {
    job: 'count_primes',
    tools: { start: 'start_prime_count', get: 'get_prime_count_result', cancel: 'cancel_prime_count' },
    scheme: 'primes',
    inline: { below: 10 ** 6 },
    // 20 segments of 5 M numbers: about 2 s of sieving on two idle cores.
    pastBudget: { below: 10 ** 8 },
    long: { below: 10 ** 10 },
    task: { args: { below: 10 ** 8 }, completedMessage: 'Counted 5761455 primes below 100000000' },
    keyed: [{ below: 1000 }, { below: 10_000 }],
    check(result, args) {
        const below = Number(args.below);
        const known = PRIMES_BELOW.get(below);
        assert.ok(known !== undefined, `no known π for ${below}`);
        const { count, below: echoed, segments } = result as { count: number; below: number; segments: number };
        assert.deepEqual({ count, below: echoed, segments }, { count: known, below, segments: Math.ceil(below / 5_000_000) });
    },
    progressTotal: (args) => Math.ceil(Number(args.below) / 5_000_000),
    cost: () => ({ time_limit_seconds: DEFAULT_TIME_LIMIT_SECONDS }),
    outOfBounds: [
        [{ below: 1 }, /below must be an integer from 2 to 1000000000000/],
        [{ below: 2.5 }, /below must be an integer from 2 to 1000000000000/],
        [{}, /below must be an integer from 2 to 1000000000000/],
        [{ below: 10, foo: 1, bar: 2 }, /unknown arguments "foo", "bar": the tool takes below, idempotency_key/],
    ],
    notFound: {
        error: 'No prime count workflow has this id.',
        next: 'Do not poll this id again. Call start_prime_count to start a new workflow.',
    },
    // CountPrimes refuses an input without its segment size.
    failing: { orchestrator: 'CountPrimes', input: { below: 100 } },
};

/** One fixture a registered job, in the registry's order (test/unit/jobRegistry.test.ts holds the two lists to one). */
export const JOB_FIXTURES: readonly JobFixture[] = [MINING_FIXTURE, PRIME_COUNT_FIXTURE];

/** The settings that serve every job's tools. */
export const ALL_JOBS = { ENABLED_JOBS: JOB_FIXTURES.map((fixture) => fixture.job).join(',') };
