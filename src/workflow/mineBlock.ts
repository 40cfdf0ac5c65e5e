import { z } from 'zod';
import { searchNonce, type SearchRequest, type SearchResult } from '../mining/search';
import type { Block, MineBlockInput } from './contracts';

/**
 * The MineBlock activity: validates its input, then finds the block's smallest nonce off the event
 * loop. Its error messages end up (shortened) in a failed workflow's `error`, so they are written
 * for a user: they name the field and its bound.
 */

export function mineBlockInputSchema(maxDifficulty: number) {
    return z.object({
        index: z.number().int().min(0),
        previous_hash: z.string().min(1).max(200),
        difficulty: z.number().int().min(0).max(maxDifficulty),
    });
}

export type Search = (request: SearchRequest, signal?: AbortSignal) => Promise<SearchResult>;

/**
 * Throws a clear Error for bad input; the search defaults to the process-wide worker pool.
 * `stop` ends the search early (its workflow has ended, so nobody wants the block).
 */
export function mineBlockActivity(maxDifficulty: number, search: Search = searchNonce) {
    const schema = mineBlockInputSchema(maxDifficulty);
    return async (input: unknown, stop?: AbortSignal): Promise<Block> => {
        const parsed = schema.safeParse(input);
        if (!parsed.success) {
            const problems = parsed.error.issues.map((issue) => describe(issue, maxDifficulty)).join('; ');
            throw new Error(`Invalid MineBlock input: ${problems}`);
        }
        const block: MineBlockInput = parsed.data;
        const { nonce, hash } = await search(
            { index: block.index, previousHash: block.previous_hash, difficulty: block.difficulty },
            stop
        );
        return { index: block.index, previous_hash: block.previous_hash, nonce, hash };
    };
}

function describe(issue: z.core.$ZodIssue, maxDifficulty: number): string {
    const field = issue.path.join('.') || 'input';
    switch (field) {
        case 'difficulty':
            return `difficulty must be an integer from 0 to ${maxDifficulty}`;
        case 'index':
            return 'index must be a non-negative integer';
        case 'previous_hash':
            return 'previous_hash must be a string of 1 to 200 characters';
        default:
            return `${field}: ${issue.message}`;
    }
}
