import { join } from 'node:path';
import { z } from 'zod';
import { sharedThreadPool } from '../offThread/threadPool';
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
 * The segment counted on the process-wide thread pool, as the registered activity does: the sieve is CPU-bound, and
 * on the Node worker's event loop it would hold up the HTTP calls the same process answers.
 */
export async function countSegmentOffThread(input: unknown): Promise<SegmentOutput> {
    const { start, end } = parseInput(input);
    const count = await sharedThreadPool().run<number>(join(__dirname, 'sieveTask.js'), { start, end });
    return { start, end, count };
}
