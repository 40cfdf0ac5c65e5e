import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DIGEST_BITS, blockDigest, meetsDifficulty } from './hashRule';
import type { ScanAnswer, ScanJob, SearchWorkerData } from './searchWorker';

/**
 * The parallel proof-of-work search. Worker threads scan consecutive nonce ranges ("chunks"),
 * handed out in increasing order. A hit in chunk k is only accepted once every chunk below k has
 * answered, and the smallest hit wins, so the result is the smallest nonce, exactly what a serial
 * search returns, however the threads are scheduled. A search may be limited to a nonce range.
 *
 * The pool is process-wide: the MineBlock calls an instance runs at once share its threads. Different
 * blocks take turns (round-robin); among ranges of the SAME block (ranges in flight of one workflow) the
 * lowest range gets every chunk first, because only it can end the block: split P ways, the instance would
 * hash P ranges at 1/P speed each and answer the lowest P times later than the sequential run.
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
    /** Worker threads; default one per CPU. */
    size?: number;
    /** The compiled worker script; default searchWorker.js next to this module. */
    workerFile?: string;
    /** First chunk size: small, so that easy blocks answer within a few milliseconds. */
    firstChunk?: number;
    /** Chunks double up to this size (about 40 ms of hashing at the measured rate). */
    maxChunk?: number;
    /** The worker threads' nice value (Linux); default MINING_THREAD_NICE in searchWorker.ts. */
    threadNice?: number;
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

interface PooledWorker {
    worker: Worker;
    job?: { jobId: number; start: number; search: Search };
    dead: boolean;
}

export class SearchPool {
    private readonly size: number;
    private readonly workerFile: string;
    private readonly firstChunk: number;
    private readonly maxChunk: number;
    private readonly workerData: SearchWorkerData;
    private readonly workers: PooledWorker[] = [];
    private readonly searches: Search[] = [];
    private nextJobId = 1;
    /** The block whose turn it was last: the next chunk goes to the next block with work. */
    private lastBlock: string | undefined;
    private closed = false;

    constructor(options: SearchPoolOptions = {}) {
        this.size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
        this.workerFile = options.workerFile ?? join(__dirname, 'searchWorker.js');
        this.firstChunk = Math.max(1, Math.floor(options.firstChunk ?? 1024));
        this.maxChunk = Math.max(this.firstChunk, Math.floor(options.maxChunk ?? 1 << 17));
        this.workerData = { threadNice: options.threadNice };
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

    /** Stops every worker; searches still running are rejected. */
    async close(): Promise<void> {
        this.closed = true;
        for (const search of [...this.searches]) this.fail(search, new Error('The search pool was closed'));
        const workers = this.workers.splice(0);
        await Promise.all(
            workers.map((pooled) => {
                pooled.dead = true;
                // An idle worker is unref'd: without ref() the process could run out of work before the
                // exit arrives, leaving close() pending forever.
                pooled.worker.ref();
                return pooled.worker.terminate();
            })
        );
    }

    /** Hands chunks to idle workers, round-robin over the searches that need more. */
    private dispatch(): void {
        while (!this.closed) {
            const next = this.nextSearchWithWork();
            if (next === undefined) return;
            const pooled = this.idleWorker();
            if (pooled === undefined) return;
            // Advance the turn only when the search really gets a chunk, or a busy pool starves it.
            const search = next;
            this.lastBlock = search.blockKey;
            const { start, end } = search.takeChunk();
            const jobId = this.nextJobId++;
            pooled.job = { jobId, start, search };
            const job: ScanJob = { jobId, ...search.request, start, end };
            // A busy worker keeps the process alive until it answers; an idle one never does.
            pooled.worker.ref();
            pooled.worker.postMessage(job);
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

    private idleWorker(): PooledWorker | undefined {
        const idle = this.workers.find((pooled) => pooled.job === undefined && !pooled.dead);
        if (idle !== undefined) return idle;
        if (this.workers.length >= this.size) return undefined;
        return this.spawn();
    }

    private spawn(): PooledWorker | undefined {
        let worker: Worker;
        try {
            worker = new Worker(this.workerFile, { workerData: this.workerData });
        } catch (error) {
            // Cannot start a thread at all: fail the searches rather than leave them waiting.
            const cause = error instanceof Error ? error.message : String(error);
            for (const search of [...this.searches]) this.fail(search, new Error(`Could not start a mining worker: ${cause}`));
            return undefined;
        }
        worker.unref();
        const pooled: PooledWorker = { worker, dead: false };
        worker.on('message', (answer: ScanAnswer) => this.onAnswer(pooled, answer));
        worker.on('error', (error) => this.onWorkerGone(pooled, `Mining worker failed: ${error.message}`));
        worker.on('messageerror', (error) => this.onWorkerGone(pooled, `Mining worker sent an unreadable message: ${error.message}`));
        worker.on('exit', (code) => this.onWorkerGone(pooled, `Mining worker stopped unexpectedly (exit code ${code})`));
        this.workers.push(pooled);
        return pooled;
    }

    private onAnswer(pooled: PooledWorker, answer: ScanAnswer): void {
        const job = pooled.job;
        if (job === undefined || job.jobId !== answer.jobId) return;
        pooled.job = undefined;
        pooled.worker.unref();
        const { search } = job;
        if (!search.settled) {
            search.record(job.start, answer.nonce);
            if (search.isComplete()) this.finish(search);
            else if (search.exhausted()) this.finishEmpty(search);
        }
        this.dispatch();
    }

    private onWorkerGone(pooled: PooledWorker, message: string): void {
        if (pooled.dead) return;
        pooled.dead = true;
        const at = this.workers.indexOf(pooled);
        if (at >= 0) this.workers.splice(at, 1);
        void pooled.worker.terminate();
        const job = pooled.job;
        pooled.job = undefined;
        if (job !== undefined) this.fail(job.search, new Error(message));
        // The pool replaces the worker on demand for the searches that are left.
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

let sharedPool: SearchPool | undefined;

/** The smallest nonce in the range, or undefined, searched on the process-wide pool (one thread per CPU). */
export function searchNonceRange(request: RangeRequest, signal?: AbortSignal): Promise<SearchResult | undefined> {
    sharedPool ??= new SearchPool();
    return sharedPool.searchRange(request, signal);
}
