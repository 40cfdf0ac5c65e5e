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

export function countSegmentActivity(input: unknown): SegmentOutput {
    const parsed = inputSchema.safeParse(input);
    if (!parsed.success) {
        throw new Error(
            `Invalid CountPrimeSegment input: start must be a non-negative integer and end an integer above it, ` +
                `at most start + ${SEGMENT_LIMIT} and at most ${BELOW_LIMIT}`
        );
    }
    const { start, end } = parsed.data;
    return { start, end, count: countPrimesIn(start, end) };
}
