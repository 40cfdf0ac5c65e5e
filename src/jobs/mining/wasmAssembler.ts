/**
 * Just enough of a WebAssembly binary encoder to write the mining kernel (sha256Wasm.ts) as readable
 * TypeScript instead of committing a .wasm file: one module, one memory, functions with i32 and v128
 * locals, and the handful of instructions the kernel uses. Opcodes follow the WebAssembly core
 * specification 2.0 (binary format, including the fixed-width SIMD proposal).
 */

export const I32 = 0x7f;
export const V128 = 0x7b;

/** Unsigned LEB128. */
export function uleb(value: number): number[] {
    const out: number[] = [];
    let v = value >>> 0;
    do {
        let byte = v & 0x7f;
        v >>>= 7;
        if (v !== 0) byte |= 0x80;
        out.push(byte);
    } while (v !== 0);
    return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(value: number): number[] {
    const out: number[] = [];
    let v = value | 0;
    for (;;) {
        const byte = v & 0x7f;
        v >>= 7;
        const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
        out.push(done ? byte : byte | 0x80);
        if (done) return out;
    }
}

const utf8 = (text: string) => [...Buffer.from(text, 'utf8')];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];

/** Emits one function body, instruction by instruction. */
export class Code {
    readonly bytes: number[] = [];

    private op(...bytes: number[]): this {
        this.bytes.push(...bytes);
        return this;
    }
    private simd(opcode: number, ...immediates: number[]): this {
        return this.op(0xfd, ...uleb(opcode), ...immediates);
    }

    get(local: number) { return this.op(0x20, ...uleb(local)); }
    set(local: number) { return this.op(0x21, ...uleb(local)); }
    tee(local: number) { return this.op(0x22, ...uleb(local)); }
    i32(value: number) { return this.op(0x41, ...sleb(value)); }
    i32Load(offset: number) { return this.op(0x28, 2, ...uleb(offset)); }
    i32Add() { return this.op(0x6a); }
    i32Shl() { return this.op(0x74); }
    i32Ctz() { return this.op(0x68); }
    i32LtS() { return this.op(0x48); }
    i32GeS() { return this.op(0x4e); }
    block() { return this.op(0x02, 0x40); }
    loop() { return this.op(0x03, 0x40); }
    if() { return this.op(0x04, 0x40); }
    end() { return this.op(0x0b); }
    br(depth: number) { return this.op(0x0c, ...uleb(depth)); }
    brIf(depth: number) { return this.op(0x0d, ...uleb(depth)); }
    return() { return this.op(0x0f); }

    v128Load(offset: number) { return this.simd(0x00, 0, ...uleb(offset)); }
    v128Store(offset: number) { return this.simd(0x0b, 0, ...uleb(offset)); }
    /** A v128 constant with the same 32-bit value in every lane. */
    v128Splat32(value: number) {
        const lane = [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];
        return this.simd(0x0c, ...lane, ...lane, ...lane, ...lane);
    }
    i32x4Splat() { return this.simd(0x11); }
    i32x4Eq() { return this.simd(0x37); }
    v128And() { return this.simd(0x4e); }
    v128Or() { return this.simd(0x50); }
    v128Xor() { return this.simd(0x51); }
    /** (v1 & c) | (v2 & ~c), with the operands pushed in the order v1, v2, c. */
    v128Bitselect() { return this.simd(0x52); }
    i32x4Bitmask() { return this.simd(0xa4); }
    i32x4Shl() { return this.simd(0xab); }
    i32x4ShrU() { return this.simd(0xad); }
    i32x4Add() { return this.simd(0xae); }
}

export interface FunctionDef {
    name: string;
    params: number[];
    results: number[];
    /** Declared locals after the parameters, in order, e.g. [[2, I32], [40, V128]]. */
    locals: Array<[count: number, type: number]>;
    code: Code;
}

/** A module with one exported memory ("memory", `pages` of 64 KiB) and the given exported functions. */
export function assembleModule(functions: FunctionDef[], pages: number): Uint8Array {
    const types = functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec(f.results.map((t) => [t]))]);
    const bodies = functions.map((f) => {
        const body = [...vec(f.locals.map(([count, type]) => [...uleb(count), type])), ...f.code.bytes, 0x0b];
        return [...uleb(body.length), ...body];
    });
    const exports = [
        [...uleb(6), ...utf8('memory'), 0x02, 0],
        ...functions.map((f, i) => [...uleb(Buffer.byteLength(f.name)), ...utf8(f.name), 0x00, ...uleb(i)]),
    ];
    return Uint8Array.from([
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
        ...section(1, vec(types)),
        ...section(3, vec(functions.map((_, i) => uleb(i)))),
        ...section(5, vec([[0x00, ...uleb(pages)]])),
        ...section(7, vec(exports)),
        ...section(10, vec(bodies)),
    ]);
}
