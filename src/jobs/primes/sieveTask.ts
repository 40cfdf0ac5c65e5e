import { countPrimesIn } from './sieve';

/** One segment's count, as the thread pool runs it (../offThread/threadPool.ts, countSegmentActivity.ts). */
export function runTask({ start, end }: { start: number; end: number }): number {
    return countPrimesIn(start, end);
}
