import * as crypto from 'node:crypto';

/**
 * The hot loop of the proof-of-work search: find the smallest nonce in [start, end) whose block
 * digest meets the difficulty. It follows hashRule.ts exactly, but avoids per-attempt allocation:
 * the preimage lives in one Buffer whose decimal nonce digits are incremented in place, and the
 * digest comes back as a 'binary' (latin1) string (one char per byte), which measured about 5x faster than
 * `createHash(...).update(string).digest()` on Node 20 (see BENCHMARKS.md).
 */

/** Nonces stay exact JavaScript integers; 16 digits cover Number.MAX_SAFE_INTEGER. */
const MAX_NONCE_DIGITS = 16;

type Digest = (data: Buffer) => string;

// crypto.hash (one-shot) exists from Node 20.12; fall back to createHash on older 20.x.
const digestLatin1: Digest =
    typeof crypto.hash === 'function'
        ? (data) => crypto.hash('sha256', data, 'binary')
        : (data) => crypto.createHash('sha256').update(data).digest('binary');

/** A predicate on a latin1 digest string: at least `difficulty` leading zero bits. */
function zeroBitsCheck(difficulty: number): (digest: string) => boolean {
    const fullBytes = difficulty >>> 3;
    const restBits = difficulty & 7;
    const restMask = restBits === 0 ? 0 : (0xff << (8 - restBits)) & 0xff;
    return (digest) => {
        for (let k = 0; k < fullBytes; k++) {
            if (digest.charCodeAt(k) !== 0) return false;
        }
        return restMask === 0 || (digest.charCodeAt(fullBytes) & restMask) === 0;
    };
}

/**
 * The smallest nonce in [start, end) whose digest for block `index` after `previousHash` has at
 * least `difficulty` leading zero bits, or undefined if there is none in the range.
 */
export function scanRange(
    index: number,
    previousHash: string,
    difficulty: number,
    start: number,
    end: number
): number | undefined {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0) {
        throw new RangeError(`scanRange needs safe non-negative integer bounds, got [${start}, ${end})`);
    }
    if (start >= end) return undefined;
    const meets = zeroBitsCheck(difficulty);
    const prefix = Buffer.from(`${index}:${previousHash}:`, 'utf8');
    const buf = Buffer.alloc(prefix.length + MAX_NONCE_DIGITS);
    prefix.copy(buf);
    const digitsAt = prefix.length;
    let length = digitsAt + buf.write(String(start), digitsAt, 'latin1');
    // A view over the live buffer: incrementing the digits in `buf` changes what it hashes,
    // so a new view is only needed when the number of digits grows.
    let view = buf.subarray(0, length);

    for (let nonce = start; nonce < end; nonce++) {
        if (meets(digestLatin1(view))) return nonce;
        // Add one to the decimal digits in place.
        let i = length - 1;
        while (i >= digitsAt && buf[i] === 0x39) {
            buf[i] = 0x30;
            i--;
        }
        if (i >= digitsAt) {
            buf[i] = (buf[i] ?? 0x30) + 1;
        } else {
            // 99…9 became 00…0: prepend a 1.
            buf.copyWithin(digitsAt + 1, digitsAt, length);
            buf[digitsAt] = 0x31;
            length++;
            view = buf.subarray(0, length);
        }
    }
    return undefined;
}

/**
 * The smallest nonce for the block, searched on the calling thread. A reference for tests and the
 * benchmark's single-thread baseline; the app uses the worker pool in search.ts instead.
 */
export function findNonceSerial(index: number, previousHash: string, difficulty: number): number {
    const chunk = 1 << 16;
    for (let start = 0; start < Number.MAX_SAFE_INTEGER; start += chunk) {
        const nonce = scanRange(index, previousHash, difficulty, start, Math.min(start + chunk, Number.MAX_SAFE_INTEGER));
        if (nonce !== undefined) return nonce;
    }
    throw new RangeError('no nonce below Number.MAX_SAFE_INTEGER meets the difficulty');
}
