import { createHash } from 'node:crypto';
import type { MiningResult } from '../../src/jobs/mining/contracts';

/**
 * A well-formed chain of `n` blocks, for answers that must be cut to MAX_RESULT_CHARS (the output schema
 * checks shapes, not the proof of work; 16 blocks make about 2,700 characters of JSON).
 */
export function longResult(n: number): MiningResult {
    const blocks = [];
    let previous = 'GENESIS';
    for (let index = 0; index < n; index++) {
        const hash = createHash('sha256').update(`${index}:${previous}`).digest('hex');
        blocks.push({ index, previous_hash: previous, nonce: index * 7, hash });
        previous = hash;
    }
    return { difficulty: 4, total_attempts: blocks.reduce((sum, b) => sum + b.nonce + 1, 0), elapsed_ms: 5, blocks };
}
