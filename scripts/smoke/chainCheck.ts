import { createHash } from 'node:crypto';

/**
 * Re-checks a `completed` mining result by the hashing rule of docs/contract.md, independently of the app's
 * code: each block's hash, its link to the previous block, its leading zero bits, and (for nonces small enough
 * to search again quickly) that the nonce is the smallest one.
 */

export interface MinedBlock {
    index: number;
    previous_hash: string;
    nonce: number;
    hash: string;
}

const SMALLEST_NONCE_SEARCH_LIMIT = 200_000;

function digest(index: number, previous: string, nonce: number): Buffer {
    return createHash('sha256').update(`${index}:${previous}:${nonce}`, 'utf8').digest();
}

function leadingZeroBits(bytes: Buffer): number {
    let bits = 0;
    for (const byte of bytes) {
        if (byte === 0) {
            bits += 8;
            continue;
        }
        return bits + Math.clz32(byte) - 24;
    }
    return bits;
}

/** The first problem with the result, or undefined when every block holds. */
export function chainProblem(result: unknown, difficulty: number, blocks: number): string | undefined {
    const r = result as { difficulty?: unknown; total_attempts?: unknown; blocks?: unknown } | undefined;
    if (!r || !Array.isArray(r.blocks)) return 'the result has no blocks';
    if (r.difficulty !== difficulty) return `the result says difficulty ${String(r.difficulty)}, not ${difficulty}`;
    if (r.blocks.length !== blocks) return `the result has ${r.blocks.length} blocks, not ${blocks}`;
    let previous = 'GENESIS';
    let attempts = 0;
    for (const [i, raw] of (r.blocks as MinedBlock[]).entries()) {
        if (raw.index !== i || raw.previous_hash !== previous) return `block ${i} does not follow block ${i - 1}`;
        const hash = digest(i, previous, raw.nonce);
        if (hash.toString('hex') !== raw.hash) return `block ${i}: SHA-256 of "${i}:${previous}:${raw.nonce}" is not ${raw.hash}`;
        if (leadingZeroBits(hash) < difficulty) return `block ${i}: ${raw.hash} has fewer than ${difficulty} leading zero bits`;
        if (raw.nonce < SMALLEST_NONCE_SEARCH_LIMIT) {
            for (let n = 0; n < raw.nonce; n++) {
                if (leadingZeroBits(digest(i, previous, n)) >= difficulty) return `block ${i}: nonce ${n} also fits, so ${raw.nonce} is not the smallest`;
            }
        }
        attempts += raw.nonce + 1;
        previous = raw.hash;
    }
    if (r.total_attempts !== attempts) return `total_attempts is ${String(r.total_attempts)}, the blocks' nonces add up to ${attempts}`;
    return undefined;
}
