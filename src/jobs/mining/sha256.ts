/**
 * SHA-256 building blocks (FIPS 180-4) in plain JavaScript: the round constants, the initial state,
 * and one compression. The search uses the compression only to compute a block's midstate (the state
 * after the message's fixed leading 64-byte blocks) once per block layout; the per-nonce hashing is
 * done by the WebAssembly kernel (sha256Wasm.ts), which uses the same constants.
 */

export const K: readonly number[] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

export const IV: readonly number[] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** The state after compressing the 64 bytes of `block` (starting at `offset`) into `state`; `state` is not changed. */
export function compress(state: readonly number[], block: Uint8Array, offset = 0): number[] {
    const w = new Int32Array(64);
    for (let t = 0; t < 16; t++) {
        const at = offset + 4 * t;
        w[t] = ((block[at] ?? 0) << 24) | ((block[at + 1] ?? 0) << 16) | ((block[at + 2] ?? 0) << 8) | (block[at + 3] ?? 0);
    }
    for (let t = 16; t < 64; t++) {
        const x = w[t - 15] ?? 0;
        const y = w[t - 2] ?? 0;
        const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
        const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
        w[t] = (w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1;
    }
    let [a, b, c, d, e, f, g, h] = state as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t++) {
        const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] ?? 0) + (w[t] ?? 0)) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
    }
    const out = [a, b, c, d, e, f, g, h];
    return out.map((v, i) => (v + (state[i] ?? 0)) | 0);
}

/**
 * The SHA-256 digest of `message`, whole (padding and length included), for the mining view, which re-checks every
 * block of a chain in the browser where node:crypto is not (src/jobs/mining/resultView.ts). A few blocks, not a search.
 */
export function sha256(message: Uint8Array): Uint8Array {
    const padded = new Uint8Array(Math.ceil((message.length + 9) / 64) * 64);
    padded.set(message);
    padded[message.length] = 0x80;
    const view = new DataView(padded.buffer);
    // The message length in bits, big-endian, in the last 8 bytes (at most 2^53 bits here, so two 32-bit halves).
    view.setUint32(padded.length - 8, Math.floor((message.length * 8) / 2 ** 32));
    view.setUint32(padded.length - 4, (message.length * 8) >>> 0);
    let state: readonly number[] = IV;
    for (let offset = 0; offset < padded.length; offset += 64) state = compress(state, padded, offset);
    const digest = new Uint8Array(32);
    const out = new DataView(digest.buffer);
    state.forEach((word, i) => out.setUint32(4 * i, word >>> 0));
    return digest;
}
