import { join } from 'node:path';
import { sharedThreadPool, ThreadPool } from '../offThread/threadPool';
import { DIGEST_BITS, blockDigest, meetsDifficulty } from './hashRule';
import type { ScanJob } from './scanTask';

/**
 * The parallel proof-of-work search. Pool threads (../offThread/threadPool.ts) scan consecutive nonce ranges
 * ("chunks"), handed out in increasing order. A hit in chunk k is only accepted once every chunk below k has
 * answered, and the smallest hit wins, so the result is the smallest nonce, exactly what a serial
 * search returns, however the threads are scheduled. A search may be limited to a nonce range.
 *
 * The pool is process-wide: the MineBlock calls an instance runs at once share its threads (with every other
 * job's tasks). Different blocks take turns (round-robin); among ranges of the SAME block (ranges in flight of
 * one workflow) the lowest range gets every chunk first, because only it can end the block: split P ways, the
 * instance would hash P ranges at 1/P speed each and answer the lowest P times later than the sequential run.
 * Chunks are chosen when a thread is free, so at most one chunk per thread is out at a time.
 */

export interface SearchRequest {
    index: number;
    previousHash: string;
    difficulty: number;
}

/** A search of the nonces in [start, end) only. */
export interface RangeRequest extends SearchRequest {
    start: number;
    end: number;
}

export interface SearchResult {
    nonce: number;
    /** Lowercase hex SHA-256, recomputed with the plain rule of hashRule.ts. */
    hash: string;
}

export class SearchAbortedError extends Error {
    override name = 'SearchAbortedError';
    constructor() {
        super('The search was stopped before it found a nonce');
    }
}

export interface SearchPoolOptions {
    /** The threads to search on; default a pool of its own of `size` threads at `threadNice`. */
    threads?: ThreadPool;
    /** Threads of its own pool; default one per CPU. */
    size?: number;
    /** Its own pool's nice value (Linux); default CPU_THREAD_NICE. */
    threadNice?: number;
    /** The module that scans a chunk; default ./scanTask.js (tests give one that fails). */
    scanTask?: string;
    /** First chunk size: small, so that easy blocks answer within a few milliseconds. */
    firstChunk?: number;
    /** Chunks double up to this size (about 40 ms of hashing at the measured rate). */
    maxChunk?: number;
}

class Search {
    nextStart: number;
    /** The block this searches (ranges with equal keys are ranges of one block). */
    readonly blockKey: string;
    best: number | undefined;
    /** Start nonces of the chunks handed out and not yet answered. */
    readonly pending = new Set<number>();
    settled = false;

    constructor(
        readonly request: SearchRequest,
        readonly start: number,
        private readonly end: number,
        private chunk: number,
        private readonly maxChunk: number,
        readonly resolve: (result: SearchResult | undefined) => void,
        readonly reject: (error: Error) => void
    ) {
        this.nextStart = start;
        this.blockKey = JSON.stringify([request.index, request.previousHash, request.difficulty]);
    }

    /** More chunks are needed only while nothing has been found: every chunk below a hit is already out. */
    hasWork(): boolean {
        return !this.settled && this.best === undefined && this.nextStart < this.end;
    }

    takeChunk(): { start: number; end: number } {
        const start = this.nextStart;
        const end = Math.min(start + this.chunk, this.end);
        this.nextStart = end;
        this.chunk = Math.min(this.chunk * 2, this.maxChunk);
        this.pending.add(start);
        return { start, end };
    }

    record(start: number, nonce: number | null): void {
        this.pending.delete(start);
        if (nonce !== null && (this.best === undefined || nonce < this.best)) this.best = nonce;
    }

    /** Done when a hit is known and no chunk below it is still out. */
    isComplete(): boolean {
        if (this.best === undefined) return false;
        for (const start of this.pending) {
            if (start < this.best) return false;
        }
        return true;
    }

    exhausted(): boolean {
        return this.best === undefined && this.pending.size === 0 && this.nextStart >= this.end;
    }
}

export class SearchPool {
    readonly #threads: ThreadPool;
    /** Whether close() stops the threads: only a pool of its own. */
    readonly #ownsThreads: boolean;
    readonly #scanTask: string;
    private readonly firstChunk: number;
    private readonly maxChunk: number;
    private readonly searches: Search[] = [];
    /** Chunks out on the threads. */
    #inFlight = 0;
    /** The block whose turn it was last: the next chunk goes to the next block with work. */
    private lastBlock: string | undefined;
    private closed = false;

    constructor(options: SearchPoolOptions = {}) {
        this.#ownsThreads = options.threads === undefined;
        this.#threads = options.threads ?? new ThreadPool({ size: options.size, nice: options.threadNice });
        this.#scanTask = options.scanTask ?? join(__dirname, 'scanTask.js');
        this.firstChunk = Math.max(1, Math.floor(options.firstChunk ?? 1024));
        this.maxChunk = Math.max(this.firstChunk, Math.floor(options.maxChunk ?? 1 << 17));
    }

    /**
     * The smallest nonce for the block and its hash. Rejects if a worker fails, or with
     * SearchAbortedError once `signal` aborts (chunks already out finish, within tens of ms, unused).
     */
    async search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResult> {
        const found = await this.searchRange({ ...request, start: 0, end: Number.MAX_SAFE_INTEGER }, signal);
        if (found === undefined) throw new RangeError('No nonce below Number.MAX_SAFE_INTEGER meets the difficulty');
        return found;
    }

    /**
     * The smallest nonce in [start, end) for the block and its hash, or undefined if the range has
     * none. Rejects as search() does.
     */
    searchRange(request: RangeRequest, signal?: AbortSignal): Promise<SearchResult | undefined> {
        const { index, previousHash, difficulty, start, end } = request;
        if (!Number.isSafeInteger(index) || index < 0) {
            return Promise.reject(new RangeError(`index must be a non-negative integer, got ${index}`));
        }
        if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > DIGEST_BITS) {
            return Promise.reject(new RangeError(`difficulty must be an integer from 0 to ${DIGEST_BITS}, got ${difficulty}`));
        }
        if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
            return Promise.reject(new RangeError(`the range must be safe integers with 0 <= start <= end, got [${start}, ${end})`));
        }
        if (this.closed) return Promise.reject(new Error('The search pool is closed'));
        if (signal?.aborted) return Promise.reject(new SearchAbortedError());
        // An empty range would hand out no chunk, so no answer would ever settle it.
        if (start === end) return Promise.resolve(undefined);
        return new Promise<SearchResult | undefined>((resolve, reject) => {
            const onAbort = () => this.fail(search, new SearchAbortedError());
            const search = new Search(
                { index, previousHash, difficulty },
                start,
                end,
                this.firstChunk,
                this.maxChunk,
                (result) => {
                    signal?.removeEventListener('abort', onAbort);
                    resolve(result);
                },
                (error) => {
                    signal?.removeEventListener('abort', onAbort);
                    reject(error);
                }
            );
            signal?.addEventListener('abort', onAbort, { once: true });
            this.searches.push(search);
            this.dispatch();
        });
    }

    /** Stops the search's own threads; searches still running are rejected. */
    async close(): Promise<void> {
        this.closed = true;
        for (const search of [...this.searches]) this.fail(search, new Error('The search pool was closed'));
        if (this.#ownsThreads) await this.#threads.close();
    }

    /** Hands chunks to free threads, round-robin over the searches that need more. */
    private dispatch(): void {
        while (!this.closed && this.#inFlight < this.#threads.size) {
            const search = this.nextSearchWithWork();
            if (search === undefined) return;
            // Advance the turn only when the search really gets a chunk, or a busy pool starves it.
            this.lastBlock = search.blockKey;
            const { start, end } = search.takeChunk();
            const job: ScanJob = { ...search.request, start, end };
            this.#inFlight++;
            this.#threads.run<number | null>(this.#scanTask, job).then(
                (nonce) => this.onAnswer(search, start, nonce),
                (error: Error) => this.onFailure(search, error)
            );
        }
    }

    /**
     * The next search that needs a chunk: the block after the one served last (in the order the blocks' first
     * searches came), and of that block's ranges with work the lowest.
     */
    private nextSearchWithWork(): Search | undefined {
        const lowestOfBlock = new Map<string, Search>();
        for (const search of this.searches) {
            if (!search.hasWork()) continue;
            const best = lowestOfBlock.get(search.blockKey);
            if (best === undefined || search.start < best.start) lowestOfBlock.set(search.blockKey, search);
        }
        if (lowestOfBlock.size === 0) return undefined;
        const blocks = [...lowestOfBlock.keys()];
        const last = this.lastBlock === undefined ? -1 : blocks.indexOf(this.lastBlock);
        return lowestOfBlock.get(blocks[(last + 1) % blocks.length] as string);
    }

    private onAnswer(search: Search, start: number, nonce: number | null): void {
        this.#inFlight--;
        if (!search.settled) {
            search.record(start, nonce);
            if (search.isComplete()) this.finish(search);
            else if (search.exhausted()) this.finishEmpty(search);
        }
        this.dispatch();
    }

    /** A chunk's thread failed (or the task threw): the search fails; the pool replaces the thread for the others. */
    private onFailure(search: Search, error: Error): void {
        this.#inFlight--;
        this.fail(search, new Error(`Mining failed: ${error.message}`));
        this.dispatch();
    }

    private finish(search: Search): void {
        const nonce = search.best;
        if (nonce === undefined) return;
        const { index, previousHash, difficulty } = search.request;
        const digest = blockDigest(index, previousHash, nonce);
        if (!meetsDifficulty(digest, difficulty)) {
            // The fast kernel and the plain rule disagree: never report a block that does not verify.
            this.fail(search, new Error(`Mining kernel error: nonce ${nonce} does not meet difficulty ${difficulty}`));
            return;
        }
        this.settle(search);
        search.resolve({ nonce, hash: digest.toString('hex') });
    }

    /** Every chunk of the range answered without a hit. */
    private finishEmpty(search: Search): void {
        this.settle(search);
        search.resolve(undefined);
    }

    private fail(search: Search, error: Error): void {
        if (search.settled) return;
        this.settle(search);
        search.reject(error);
    }

    private settle(search: Search): void {
        search.settled = true;
        const at = this.searches.indexOf(search);
        if (at >= 0) this.searches.splice(at, 1);
    }
}

let sharedSearch: SearchPool | undefined;

/** The smallest nonce in the range, or undefined, searched on the process-wide thread pool. */
export function searchNonceRange(request: RangeRequest, signal?: AbortSignal): Promise<SearchResult | undefined> {
    sharedSearch ??= new SearchPool({ threads: sharedThreadPool() });
    return sharedSearch.searchRange(request, signal);
}
