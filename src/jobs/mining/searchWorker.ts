import { parentPort, workerData } from 'node:worker_threads';
import { scanRange } from './scan';
import { lowerThreadPriority } from './threadPriority';

/**
 * A worker thread of the search pool (search.ts): it scans one nonce range per message and
 * answers with the smallest hit, so the CPU-bound loop never runs on the host's event loop.
 */

export interface ScanJob {
    jobId: number;
    index: number;
    previousHash: string;
    difficulty: number;
    start: number;
    end: number;
}

export interface ScanAnswer {
    jobId: number;
    /** The smallest nonce in the range that meets the difficulty, or null. */
    nonce: number | null;
}

/**
 * Mining threads run at nice 10: with every core mining, the host's main thread still gets the CPU
 * at once when a tool call arrives (BENCHMARKS.md, responsiveness under load), and on an idle machine
 * mining loses nothing.
 */
export const MINING_THREAD_NICE = 10;

export interface SearchWorkerData {
    /** Overrides MINING_THREAD_NICE (the benchmark measures scaling without it). */
    threadNice?: number;
}

const port = parentPort;
if (port === null) {
    throw new Error('searchWorker.js must run as a worker thread');
}
lowerThreadPriority((workerData as SearchWorkerData | null)?.threadNice ?? MINING_THREAD_NICE);

port.on('message', (job: ScanJob) => {
    // An exception here is deliberately uncaught: the pool sees the worker's 'error' event and
    // fails the search, which is clearer than a half-answer.
    const nonce = scanRange(job.index, job.previousHash, job.difficulty, job.start, job.end);
    const answer: ScanAnswer = { jobId: job.jobId, nonce: nonce ?? null };
    port.postMessage(answer);
});
