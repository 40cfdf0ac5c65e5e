/** The figures bench/mining.ts measures and bench/report/mining.ts renders (why apart: bench/common.ts). */

export interface ChainRun {
    difficulty: number;
    attempts: number;
    seconds: number;
}

export interface MiningFigures {
    loadBefore: number;
    loadAfter: number;
    rounds: number;
    /** Seconds each kernel and pool measurement runs. */
    secondsEach: number;
    /** Whether the contenders were pinned to CPU 0 (taskset exists). */
    pinned: boolean;
    messageBytes: number;
    threads: number;
    /** False where `openssl` is not installed: its lists are empty. */
    hasOpenssl: boolean;
    /** Hashes per CPU second of each round, one thread each; plain runs in the first round only. */
    kernel: { openssl: number[]; wasm: number[]; crypto: number[]; plain: number[] };
    /** Hashes per second of each round: the pool with one thread and with `threads`, and `openssl speed -multi`. */
    pool: { one: number[]; all: number[]; opensslAll: number[] };
    chainLength: number;
    /** The highest difficulty mined here; above it the attempts are RECORDED_ATTEMPTS'. */
    maxChainDifficulty: number;
    /** The default chain mined at each difficulty from 18, in order. */
    chains: ChainRun[];
    /** The app's defaults the DEFAULT_DIFFICULTY rule is read against (src/config.ts). */
    config: { defaultDifficulty: number; waitBudgetSeconds: number; pollAfterSeconds: number };
}
