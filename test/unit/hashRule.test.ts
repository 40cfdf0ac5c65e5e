import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { GENESIS, blockDigest, blockHash, blockPreimage, leadingZeroBits, meetsDifficulty } from '../../src/jobs/mining/hashRule';

/** The rule recomputed here from the words of docs/contract.md ("The hashing rule"), independently of src/. */
function sha256Hex(text: string): string {
    return createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
}

/** Leading zero bits, counted from the hex text one nibble at a time. */
function zeroBitsOfHex(hex: string): number {
    let bits = 0;
    for (const ch of hex) {
        const nibble = parseInt(ch, 16);
        if (nibble === 0) {
            bits += 4;
            continue;
        }
        return bits + (nibble < 2 ? 3 : nibble < 4 ? 2 : nibble < 8 ? 1 : 0);
    }
    return bits;
}

describe('hashing rule', () => {
    it('hashes the UTF-8 of "{i}:{previous_hash}:{nonce}" with the nonce in decimal', () => {
        assert.equal(blockPreimage(0, GENESIS, 339), '0:GENESIS:339');
        assert.equal(blockPreimage(12, 'ab', 1_000_000), '12:ab:1000000');
        for (const [index, prev, nonce] of [
            [0, 'GENESIS', 0],
            [0, 'GENESIS', 339],
            [3, '00000f0ae069f928c3308babadb0794eba48e7c26e4b16428bb7af9be5c2ab50', 123456789],
        ] as const) {
            assert.equal(blockHash(index, prev, nonce), sha256Hex(`${index}:${prev}:${nonce}`));
        }
    });

    it('matches fixed vectors', () => {
        // SHA-256("abc"), FIPS 180-2: guards the primitive itself.
        assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
        assert.equal(blockHash(0, GENESIS, 0), sha256Hex('0:GENESIS:0'));
        // Block 0 of any chain at difficulty 8: nonce 339 is the first with a 0x00 first byte.
        assert.equal(blockHash(0, GENESIS, 339), '005cd16526c7beb981dbccf408b276d36c70d61eb033c642a52a8e8cbe56ac95');
        assert.equal(sha256Hex('0:GENESIS:339'), '005cd16526c7beb981dbccf408b276d36c70d61eb033c642a52a8e8cbe56ac95');
    });

    it('counts leading zero bits', () => {
        assert.equal(leadingZeroBits(Uint8Array.from([0x80, 0])), 0);
        assert.equal(leadingZeroBits(Uint8Array.from([0x01, 0xff])), 7);
        assert.equal(leadingZeroBits(Uint8Array.from([0x00, 0x00, 0x0f])), 20);
        assert.equal(leadingZeroBits(Uint8Array.from([0x00, 0x40])), 9);
        assert.equal(leadingZeroBits(new Uint8Array(32)), 256);
        for (let nonce = 0; nonce < 500; nonce++) {
            const hex = sha256Hex(`1:x:${nonce}`);
            assert.equal(leadingZeroBits(blockDigest(1, 'x', nonce)), zeroBitsOfHex(hex), `nonce ${nonce}`);
        }
    });

    it('meets a difficulty of at least, not exactly, that many bits', () => {
        const digest = Uint8Array.from([0x00, 0x0f]);
        assert.equal(meetsDifficulty(digest, 0), true);
        assert.equal(meetsDifficulty(digest, 12), true);
        assert.equal(meetsDifficulty(digest, 11), true);
        assert.equal(meetsDifficulty(digest, 13), false);
    });
});
