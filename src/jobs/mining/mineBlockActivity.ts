import { z } from 'zod';
import { SearchAbortedError, searchNonceRange, type RangeRequest, type SearchResult } from './search';
import { NONCE_RANGE_SIZE, type MineBlockInput, type MineBlockOutput } from './contracts';

/**
 * The MineBlock activity: validates its input, then searches one bounded nonce range of the block
 * for its smallest nonce, off the event loop. Bounded, so that one call stays far below the host's
 * functionTimeout at any difficulty; MineChain walks the ranges in order. Its error messages end up
 * (shortened) in a failed workflow's `error`, so they are written for a user: they name the field
 * and its bound.
 */

function mineBlockInputSchema(maxDifficulty: number, maxRange: number = NONCE_RANGE_SIZE) {
    return z
        .object({
            index: z.number().int().min(0),
            previous_hash: z.string().min(1).max(200),
            difficulty: z.number().int().min(0).max(maxDifficulty),
            // int() also keeps both within Number.MAX_SAFE_INTEGER, where nonces stay exact.
            start: z.number().int().min(0),
            end: z.number().int().min(1),
        })
        .refine((input) => input.end > input.start && input.end - input.start <= maxRange, {
            path: ['end'],
            // Only once the fields themselves are valid: a bad start is reported as such, not as a bad end.
            when: (payload) => payload.issues.length === 0,
        });
}

export type RangeSearch = (request: RangeRequest, signal?: AbortSignal) => Promise<SearchResult | undefined>;

/**
 * Throws a clear Error for bad input; the search defaults to the process-wide worker pool.
 * `stop` ends the search early (its workflow has ended, so nobody wants the block): the call then succeeds
 * with a not-found answer for the range, so that a cancelled workflow's search is no function failure.
 * `maxRange` is the most nonces one call accepts: NONCE_RANGE_SIZE, smaller in tests.
 */
export function mineBlockActivity(maxDifficulty: number, search: RangeSearch = searchNonceRange, maxRange: number = NONCE_RANGE_SIZE) {
    const schema = mineBlockInputSchema(maxDifficulty, maxRange);
    return async (input: unknown, stop?: AbortSignal): Promise<MineBlockOutput> => {
        const parsed = schema.safeParse(input);
        if (!parsed.success) {
            const problems = [...new Set(parsed.error.issues.map((issue) => describe(issue, maxDifficulty, maxRange)))].join('; ');
            throw new Error(`Invalid MineBlock input: ${problems}`);
        }
        const { index, previous_hash, difficulty, start, end }: MineBlockInput = parsed.data;
        let found: SearchResult | undefined;
        try {
            found = await search({ index, previousHash: previous_hash, difficulty, start, end }, stop);
        } catch (error) {
            // Stopped because its workflow has ended: not a failure. The answer goes to an orchestration that
            // has ended (its history takes no more events), so nobody reads it; it only has to be well formed.
            if (error instanceof SearchAbortedError && stop?.aborted) return { found: false, start, end };
            throw error;
        }
        if (found === undefined) return { found: false, start, end };
        return { found: true, block: { index, previous_hash, nonce: found.nonce, hash: found.hash } };
    };
}

function describe(issue: z.core.$ZodIssue, maxDifficulty: number, maxRange: number): string {
    const field = issue.path.join('.') || 'input';
    switch (field) {
        case 'difficulty':
            return `difficulty must be an integer from 0 to ${maxDifficulty}`;
        case 'index':
            return 'index must be a non-negative integer';
        case 'previous_hash':
            return 'previous_hash must be a string of 1 to 200 characters';
        case 'start':
            return 'start must be a non-negative integer';
        case 'end':
            return `end must be an integer above start, at most start + ${maxRange}`;
        default:
            return `${field}: ${issue.message}`;
    }
}
