import * as crypto from 'node:crypto';
import { blockDigest, meetsDifficulty } from './hashRule';
import { MIDSTATE_MIN_NONCE, MidstateScanner, firstWordMask } from './midstateScan';

/**
 * The hot loop of the proof-of-work search: find the smallest nonce in [start, end) whose block
 * digest meets the difficulty. Two kernels, both following hashRule.ts exactly:
 *
 * - the WebAssembly SIMD kernel (midstateScan.ts): one SHA-256 compression per nonce after the
 *   message's fixed leading block, four nonces at a time; every hit it reports is re-checked here
 *   with node:crypto. It covers nonces of three digits or more in messages whose last block fits
 *   one compression (every block of this app's chains);
 * - node:crypto for the rest (nonces below 100, odd previous hashes, no WebAssembly SIMD): the
 *   preimage lives in one Buffer whose decimal nonce digits are incremented in place, and the digest
 *   comes back as a 'binary' (latin1) string, which avoids a Buffer per attempt.
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
    checkBounds(start, end);
    if (start >= end) return undefined;
    let next = start;
    if (next < MIDSTATE_MIN_NONCE) {
        const found = scanRangeNodeCrypto(index, previousHash, difficulty, next, Math.min(end, MIDSTATE_MIN_NONCE));
        if (found !== undefined) return found;
        next = MIDSTATE_MIN_NONCE;
    }
    const scanner = MidstateScanner.create(Buffer.from(`${index}:${previousHash}:`, 'utf8'));
    if (scanner === undefined) return scanRangeNodeCrypto(index, previousHash, difficulty, next, end);
    const mask = firstWordMask(difficulty);
    while (next < end) {
        // One group: the nonces that share all digits but the last two.
        const group = Math.floor(next / 100);
        const base = group * 100;
        const groupEnd = Math.min(end, base + 100);
        if (!scanner.prepare(group)) {
            // The message's layout depends only on the number of digits: none of the nonces with as
            // many digits as this one fits the kernel, so node:crypto takes all of them in one go.
            const sameDigits = Math.min(end, 10 ** String(next).length);
            const found = scanRangeNodeCrypto(index, previousHash, difficulty, next, sameDigits);
            if (found !== undefined) return found;
            next = sameDigits;
            continue;
        }
        const hi = groupEnd - base;
        for (let j = scanner.scanGroup(next - base, hi, mask); j >= 0; j = scanner.scanGroup(j + 1, hi, mask)) {
            // The kernel checks the first 32 bits only: confirm the whole digest with the plain rule.
            if (meetsDifficulty(blockDigest(index, previousHash, base + j), difficulty)) return base + j;
        }
        next = groupEnd;
    }
    return undefined;
}

function checkBounds(start: number, end: number): void {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0) {
        throw new RangeError(`scanRange needs safe non-negative integer bounds, got [${start}, ${end})`);
    }
}

/** scanRange with node:crypto only (the fallback, and the benchmark's reference). */
export function scanRangeNodeCrypto(
    index: number,
    previousHash: string,
    difficulty: number,
    start: number,
    end: number
): number | undefined {
    checkBounds(start, end);
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
