import { parentPort, workerData } from 'node:worker_threads';
import { countPrimesIn } from './sieve';

// One segment, off the Node worker's event loop (countSegmentActivity.ts, countSegmentOffThread).
const { start, end } = workerData as { start: number; end: number };
parentPort?.postMessage(countPrimesIn(start, end));
