import { createHash } from 'node:crypto';

/**
 * The hashing rule (docs/contract.md), recomputed from scratch with node:crypto, independently of the app: what
 * the end-to-end tests and the load bench hold every mined chain to.
 */

export interface Block {
    index: number;
    previous_hash: string;
    nonce: number;
    hash: string;
}

export interface Mined {
    difficulty: number;
    total_attempts: number;
    elapsed_ms: number;
    blocks: Block[];
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function leadingZeroBits(digest: Buffer): number {
    let bits = 0;
    for (const byte of digest) {
        if (byte !== 0) return bits + Math.clz32(byte) - 24;
        bits += 8;
    }
    return bits;
}

/**
 * What is wrong with `blocks` as the first blocks of a chain at `difficulty` from GENESIS (none: it checks
 * out). With `smallestUpTo`, blocks at that difficulty or lower are also checked to have the smallest
 * nonce, by trying every smaller one (cheap only at low difficulties).
 */
export function chainProblems(blocks: readonly Block[], difficulty: number, smallestUpTo = -1): string[] {
    const problems: string[] = [];
    let previous = 'GENESIS';
    for (const [i, block] of blocks.entries()) {
        const digest = sha256(`${i}:${previous}:${block.nonce}`);
        if (block.index !== i) problems.push(`block ${i} has index ${block.index}`);
        if (block.previous_hash !== previous) problems.push(`block ${i} has the wrong previous_hash`);
        if (block.hash !== digest.toString('hex')) problems.push(`block ${i} has the wrong hash`);
        if (leadingZeroBits(digest) < difficulty) problems.push(`block ${i} does not meet difficulty ${difficulty}`);
        if (difficulty <= smallestUpTo) {
            for (let n = 0; n < block.nonce; n++) {
                if (leadingZeroBits(sha256(`${i}:${previous}:${n}`)) >= difficulty) {
                    problems.push(`block ${i}: nonce ${n} < ${block.nonce} would do`);
                    break;
                }
            }
        }
        previous = block.hash;
    }
    return problems;
}

/** What is wrong with a whole `result` of `blocks` blocks at `difficulty`, its totals included. */
export function resultProblems(result: Mined | undefined, difficulty: number, blocks: number, smallestUpTo = -1): string[] {
    if (result === undefined) return ['no result'];
    const problems = chainProblems(result.blocks, difficulty, smallestUpTo);
    if (result.difficulty !== difficulty) problems.push(`difficulty ${result.difficulty}, not ${difficulty}`);
    if (result.blocks.length !== blocks) problems.push(`${result.blocks.length} blocks, not ${blocks}`);
    const attempts = result.blocks.reduce((sum, block) => sum + block.nonce + 1, 0);
    if (result.total_attempts !== attempts) problems.push(`total_attempts ${result.total_attempts}, not ${attempts}`);
    if (!(result.elapsed_ms >= 0)) problems.push(`elapsed_ms ${result.elapsed_ms}`);
    return problems;
}
