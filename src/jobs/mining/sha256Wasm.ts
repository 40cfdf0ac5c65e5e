import { Code, I32, V128, assembleModule } from './wasmAssembler';
import { K } from './sha256';

/**
 * The WebAssembly SIMD mining kernel, generated here at load time (no binary in the repository).
 *
 * It hashes nonces whose message needs exactly one SHA-256 compression after a midstate: the caller
 * puts the midstate and the message's last 64-byte block (with the nonce's last two decimal digits
 * written as "00") in memory, plus two tables of what each value 00..99 of those two digits adds to
 * the block's words. `scan(lo, hi, mask, wa16)` then hashes the values lo..hi-1 of the last two
 * digits, four at a time (one per i32x4 lane), and returns the first whose first digest word has
 * no bit of `mask` set (the leading zero bits asked for, up to 32), or -1. Deeper checks are the
 * caller's: it recomputes every hit with node:crypto.
 *
 * Memory layout (byte offsets; words are the big-endian message words as i32 values):
 */
export const MIDSTATE = 0; // 8 x i32: the state after the message's leading blocks
export const BLOCK = 256; // 16 x v128: the last block, each word splatted over 4 lanes; scan rewrites 2 of them
export const BASE = 512; // 16 x v128: the same block, never written by scan (where it restores the 2 words from)
export const TENS = 1024; // 104 x i32: added to word `wa` for each value 0..103 (values 100..103 pad the last lanes)
export const UNITS = 1536; // 104 x i32: added to word `wa + 1`
export const TABLE_ENTRIES = 104;

const rotations = (code: Code, x: number, shifts: readonly [number, number, number], shiftLast = false) => {
    // rotr(x, a) ^ rotr(x, b) ^ rotr(x, c), or with the last a plain shift (the message schedule's σ).
    shifts.forEach((n, k) => {
        code.get(x).i32(n).i32x4ShrU();
        if (!(shiftLast && k === 2)) code.get(x).i32(32 - n).i32x4Shl().v128Or();
        if (k > 0) code.v128Xor();
    });
};

function scanFunction(): Code {
    // Locals: parameters 0..3, then j, bm, then the v128s.
    const [lo, hi, mask, wa16, j, bm] = [0, 1, 2, 3, 4, 5];
    const mid = Array.from({ length: 8 }, (_, k) => 6 + k);
    const state = Array.from({ length: 8 }, (_, k) => 14 + k);
    const w = Array.from({ length: 16 }, (_, k) => 22 + k);
    const [tmp, maskv] = [38, 39];

    const c = new Code();
    mid.forEach((local, k) => c.i32(0).i32Load(MIDSTATE + 4 * k).i32x4Splat().set(local));
    c.get(mask).i32x4Splat().set(maskv);
    c.get(lo).set(j);
    c.block().loop();
    c.get(j).get(hi).i32GeS().brIf(1);
    // The two words holding the last two digits, for lanes j..j+3.
    c.get(wa16).get(wa16).v128Load(BASE).get(j).i32(2).i32Shl().v128Load(TENS).i32x4Add().v128Store(BLOCK);
    c.get(wa16).get(wa16).v128Load(BASE + 16).get(j).i32(2).i32Shl().v128Load(UNITS).i32x4Add().v128Store(BLOCK + 16);
    w.forEach((local, t) => c.i32(0).v128Load(BLOCK + 16 * t).set(local));
    mid.forEach((local, k) => c.get(local).set(state[k] as number));

    // 64 rounds, unrolled; the working variables are renamed rather than moved.
    let [a, b, cc, d, e, f, g, h] = state as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t++) {
        const wt = w[t % 16] as number;
        if (t >= 16) {
            // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], in place of W[t-16].
            rotations(c, w[(t - 2) % 16] as number, [17, 19, 10], true);
            c.get(w[(t - 7) % 16] as number).i32x4Add();
            rotations(c, w[(t - 15) % 16] as number, [7, 18, 3], true);
            c.i32x4Add().get(wt).i32x4Add().set(wt);
        }
        // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
        c.get(h);
        rotations(c, e, [6, 11, 25]);
        c.i32x4Add();
        c.get(f).get(g).get(e).v128Bitselect().i32x4Add();
        c.v128Splat32(K[t] as number).i32x4Add().get(wt).i32x4Add().set(tmp);
        // e' = d + T1, into d's local
        c.get(d).get(tmp).i32x4Add().set(d);
        // a' = T1 + Σ0(a) + Maj(a, b, c), into h's local; Maj(a, b, c) = a == b ? a : c, bitwise.
        rotations(c, a, [2, 13, 22]);
        c.get(cc).get(a).get(a).get(b).v128Xor().v128Bitselect().i32x4Add();
        c.get(tmp).i32x4Add().set(h);
        [a, b, cc, d, e, f, g, h] = [h, a, b, cc, d, e, f, g];
    }

    // The digest's first word, masked to the leading bits that must be zero.
    c.get(a).get(mid[0] as number).i32x4Add().get(maskv).v128And().v128Splat32(0).i32x4Eq().i32x4Bitmask().tee(bm);
    c.if();
    // The lowest lane is the smallest nonce; a lane past hi is outside the range, and so are those after it.
    c.get(j).get(bm).i32Ctz().i32Add().tee(j).get(hi).i32LtS();
    c.if().get(j).return().end();
    c.i32(-1).return();
    c.end();
    c.get(j).i32(4).i32Add().set(j);
    c.br(0);
    c.end().end();
    c.i32(-1);
    return c;
}

/** The kernel's module bytes. */
export function kernelModuleBytes(): Uint8Array {
    return assembleModule(
        [
            {
                name: 'scan',
                params: [I32, I32, I32, I32],
                results: [I32],
                locals: [[2, I32], [34, V128]],
                code: scanFunction(),
            },
        ],
        1
    );
}

export interface KernelInstance {
    memory: { readonly buffer: ArrayBuffer };
    scan(lo: number, hi: number, mask: number, wa16: number): number;
}

/** The part of the WebAssembly global used here (the ES2022 lib this project compiles against has no types for it). */
interface WebAssemblyApi {
    validate(bytes: Uint8Array): boolean;
    Module: new (bytes: Uint8Array) => object;
    Instance: new (module: object) => { exports: unknown };
}

/** A fresh instance, or undefined where WebAssembly SIMD is not available (the caller falls back to node:crypto). */
export function instantiateKernel(): KernelInstance | undefined {
    const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
    const bytes = kernelModuleBytes();
    if (wasm === undefined || !wasm.validate(bytes)) return undefined;
    return new wasm.Instance(new wasm.Module(bytes)).exports as KernelInstance;
}
