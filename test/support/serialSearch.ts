import { scanRange } from '../../src/jobs/mining/scan';

/**
 * The smallest nonce for the block, searched on the calling thread. The reference the tests hold the
 * app's searches to; the app uses the worker pool of src/jobs/mining/search.ts instead.
 */
export function findNonceSerial(index: number, previousHash: string, difficulty: number): number {
    const chunk = 1 << 16;
    for (let start = 0; start < Number.MAX_SAFE_INTEGER; start += chunk) {
        const nonce = scanRange(index, previousHash, difficulty, start, Math.min(start + chunk, Number.MAX_SAFE_INTEGER));
        if (nonce !== undefined) return nonce;
    }
    throw new RangeError('no nonce below Number.MAX_SAFE_INTEGER meets the difficulty');
}
