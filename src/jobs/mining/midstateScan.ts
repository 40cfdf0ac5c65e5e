import { IV, compress } from './sha256';
import { BASE, BLOCK, MIDSTATE, TABLE_ENTRIES, TENS, UNITS, instantiateKernel, type KernelInstance } from './sha256Wasm';

/**
 * Drives the WebAssembly kernel over a nonce range, one group of 100 nonces (same leading digits)
 * at a time: it computes the group's midstate (the state after the message's 64-byte blocks that lie
 * before the last two digits; cached while those blocks hold no nonce digit) and last block, and lets
 * the kernel try the 100 values of the last two digits.
 *
 * It handles only nonces of three digits or more whose message's last block fits one compression
 * (at most 55 bytes after the midstate). `scan` answers candidates, whose first 32 digest bits meet
 * the difficulty; the caller confirms each one with node:crypto.
 */

/** Nonces below this have fewer than three digits: their last two digits would not be two digits. */
export const MIDSTATE_MIN_NONCE = 100;
/** The most message bytes one final compression can take (64 minus 0x80 and the 8-byte length). */
const MAX_TAIL = 55;

const kernel: KernelInstance | undefined = instantiateKernel();

export class MidstateScanner {
    private readonly prefix: Buffer;
    private readonly k: KernelInstance;
    private readonly i32: Int32Array;
    private readonly message = Buffer.alloc(256);
    private readonly block = Buffer.alloc(64);
    /** Layout of the current group: the number of high digits it was prepared for, etc. */
    private highDigits = -1;
    private fixedBlocks = 0;
    private tail = 0;
    private wa16 = 0;
    private midstateCached = false;

    /** Undefined when the kernel is unavailable (no WebAssembly SIMD). */
    static create(prefix: Buffer): MidstateScanner | undefined {
        return kernel === undefined ? undefined : new MidstateScanner(prefix, kernel);
    }

    private constructor(prefix: Buffer, k: KernelInstance) {
        this.prefix = prefix;
        this.k = k;
        this.i32 = new Int32Array(k.memory.buffer);
        prefix.copy(this.message);
    }

    /**
     * Whether group `group` (nonces 100·group … 100·group + 99) fits the kernel, preparing it if so.
     * Must be called before scanGroup for that group.
     */
    prepare(group: number): boolean {
        if (group < 1) return false;
        const high = String(group);
        const L = this.prefix.length;
        const length = L + high.length + 2;
        if (high.length !== this.highDigits) {
            this.highDigits = high.length;
            // The last two digits start at length - 2: every 64-byte block before that is fixed within the group.
            this.fixedBlocks = Math.floor((length - 2) / 64);
            this.tail = length - 64 * this.fixedBlocks;
            if (this.tail > MAX_TAIL || length + 9 > this.message.length) return false;
            this.midstateCached = false;
            this.writeTables();
        }
        if (this.tail > MAX_TAIL || length + 9 > this.message.length) return false;
        const m = this.message;
        m.write(high, L, 'latin1');
        m[length - 2] = 0x30;
        m[length - 1] = 0x30;
        // The fixed blocks hold nonce digits only when the prefix ends inside them.
        if (!this.midstateCached || 64 * this.fixedBlocks > L) {
            let state: readonly number[] = IV;
            for (let b = 0; b < this.fixedBlocks; b++) state = compress(state, m, 64 * b);
            this.i32.set(state, MIDSTATE / 4);
            this.midstateCached = 64 * this.fixedBlocks <= L;
        }
        this.writeLastBlock(length);
        return true;
    }

    /** The first value of the last two digits in [lo, hi) whose digest's first word has no `mask` bit set, or -1. */
    scanGroup(lo: number, hi: number, mask: number): number {
        return this.k.scan(lo, hi, mask, this.wa16);
    }

    private writeLastBlock(length: number): void {
        const start = 64 * this.fixedBlocks;
        const block = this.block.fill(0);
        this.message.copy(block, 0, start, length);
        block[this.tail] = 0x80;
        // The message length in bits, big-endian, in the last 8 bytes (it stays far below 2^32).
        block.writeUInt32BE(length * 8, 60);
        const i32 = this.i32;
        for (let t = 0; t < 16; t++) {
            const word = block.readInt32BE(4 * t);
            const at = t * 4;
            for (let lane = 0; lane < 4; lane++) {
                i32[BLOCK / 4 + at + lane] = word;
                i32[BASE / 4 + at + lane] = word;
            }
        }
    }

    /** What each value 0..99 of the last two digits adds to the words that hold them. */
    private writeTables(): void {
        const tens = this.tail - 2;
        const units = this.tail - 1;
        const wa = tens >> 2;
        this.wa16 = 16 * wa;
        const shift = (at: number) => 8 * (3 - (at & 3));
        for (let v = 0; v < TABLE_ENTRIES; v++) {
            const t = v < 100 ? Math.floor(v / 10) : 0;
            const u = v < 100 ? v % 10 : 0;
            let first = t << shift(tens);
            let second = 0;
            if (units >> 2 === wa) first += u << shift(units);
            else second = u << shift(units);
            this.i32[TENS / 4 + v] = first;
            this.i32[UNITS / 4 + v] = second;
        }
    }
}

/** The mask of the first digest word's bits that must be zero for `difficulty` leading zero bits (up to 32). */
export function firstWordMask(difficulty: number): number {
    if (difficulty <= 0) return 0;
    if (difficulty >= 32) return -1;
    return ~(0xffffffff >>> difficulty);
}
