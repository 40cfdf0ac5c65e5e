import { scanRange } from './scan';

/** One chunk of a nonce search, as the thread pool runs it (../offThread/threadPool.ts, search.ts). */
export interface ScanJob {
    index: number;
    previousHash: string;
    difficulty: number;
    start: number;
    end: number;
}

/** The smallest nonce in [start, end) that meets the difficulty, or null. */
export function runTask(job: ScanJob): number | null {
    return scanRange(job.index, job.previousHash, job.difficulty, job.start, job.end) ?? null;
}
