import { parentPort } from 'node:worker_threads';
import { scanRange } from './scan';

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

const port = parentPort;
if (port === null) {
    throw new Error('searchWorker.js must run as a worker thread');
}

port.on('message', (job: ScanJob) => {
    // An exception here is deliberately uncaught: the pool sees the worker's 'error' event and
    // fails the search, which is clearer than a half-answer.
    const nonce = scanRange(job.index, job.previousHash, job.difficulty, job.start, job.end);
    const answer: ScanAnswer = { jobId: job.jobId, nonce: nonce ?? null };
    port.postMessage(answer);
});
