import { createHash } from 'node:crypto';

/**
 * The hashing rule (docs/contract.md, "The hashing rule"), written plainly so it is obviously right. The fast search in
 * scan.ts must agree with it; tests and the search's own result check hold it to that.
 */

/** The previous_hash of block 0. */
export const GENESIS = 'GENESIS';

/** SHA-256 has 256 bits: no digest can have more leading zero bits than this. */
export const DIGEST_BITS = 256;

/** The text block `index` hashes: `"{i}:{previous_hash}:{nonce}"`, the nonce in decimal. */
export function blockPreimage(index: number, previousHash: string, nonce: number): string {
    return `${index}:${previousHash}:${nonce}`;
}

/** SHA-256 of the UTF-8 bytes of the block's preimage. */
export function blockDigest(index: number, previousHash: string, nonce: number): Buffer {
    return createHash('sha256').update(blockPreimage(index, previousHash, nonce), 'utf8').digest();
}

/** The block's `hash`: its digest in lowercase hex. */
export function blockHash(index: number, previousHash: string, nonce: number): string {
    return blockDigest(index, previousHash, nonce).toString('hex');
}

/** How many zero bits the digest starts with. */
export function leadingZeroBits(digest: Uint8Array): number {
    let bits = 0;
    for (const byte of digest) {
        if (byte === 0) {
            bits += 8;
            continue;
        }
        return bits + Math.clz32(byte) - 24;
    }
    return bits;
}

/** True when the digest starts with at least `difficulty` zero bits. */
export function meetsDifficulty(digest: Uint8Array, difficulty: number): boolean {
    return leadingZeroBits(digest) >= difficulty;
}
