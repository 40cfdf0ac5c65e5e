import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { BELOW_LIMIT, SEGMENT_LIMIT, type SegmentOutput } from './contracts';
import { countPrimesIn } from './sieve';

/**
 * The CountPrimeSegment activity: validates its input, then counts the primes in one bounded range. Its
 * error messages end up (shortened) in a failed workflow's `error`, so they name the field and its bound.
 */

const inputSchema = z
    .object({ start: z.number().int().min(0), end: z.number().int().min(1).max(BELOW_LIMIT) })
    .refine((input) => input.end > input.start && input.end - input.start <= SEGMENT_LIMIT, {
        path: ['end'],
        when: (payload) => payload.issues.length === 0,
    });

function parseInput(input: unknown): { start: number; end: number } {
    const parsed = inputSchema.safeParse(input);
    if (!parsed.success) {
        throw new Error(
            `Invalid CountPrimeSegment input: start must be a non-negative integer and end an integer above it, ` +
                `at most start + ${SEGMENT_LIMIT} and at most ${BELOW_LIMIT}`
        );
    }
    return parsed.data;
}

/** The segment counted on this thread. */
export function countSegmentActivity(input: unknown): SegmentOutput {
    const { start, end } = parseInput(input);
    return { start, end, count: countPrimesIn(start, end) };
}

/**
 * The segment counted in a worker thread, as the registered activity does: the sieve is CPU-bound, and on the
 * Node worker's event loop it would hold up the HTTP calls the same process answers (as mining's search pool avoids).
 */
export async function countSegmentOffThread(input: unknown): Promise<SegmentOutput> {
    const { start, end } = parseInput(input);
    const count = await new Promise<number>((resolve, reject) => {
        const worker = new Worker(join(__dirname, 'sieveWorker.js'), { workerData: { start, end } });
        worker.once('message', (value: unknown) => (typeof value === 'number' ? resolve(value) : reject(new Error('the sieve answered no count'))));
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`the sieve stopped without a count (exit code ${code})`)));
    });
    return { start, end, count };
}
