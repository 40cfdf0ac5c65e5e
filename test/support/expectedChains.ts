/**
 * Chains computed once, independently of the app, with node:crypto and a plain loop over nonces from 0
 * (the hashing rule in README.md; too slow to run in every test at these difficulties):
 *
 *   for i in blocks: for n = 0..: d = sha256(`${i}:${prev}:${n}`); if leadingZeroBits(d) >= difficulty: take n
 *
 * A chain is fixed by its inputs, so a run that was interrupted (storage outage, host killed) must end
 * with exactly these blocks; a prefix of a longer chain is the shorter chain.
 */

export interface ExpectedBlock {
    index: number;
    nonce: number;
    hash: string;
}

/** Difficulty 22 from GENESIS. */
export const CHAIN_22: readonly ExpectedBlock[] = [
    { index: 0, nonce: 688931, hash: '0000017ad79bcd359e65c0a4a1cbf77525d01dfc14982a5800364c4a52b5c914' },
    { index: 1, nonce: 1554080, hash: '0000028510c98974f710ae421ae02e454c737e18ffd087115bd9a7d7f4022499' },
    { index: 2, nonce: 2656842, hash: '00000101ab3c95772dcdf17056d29ae7e83febe698f69339e55fd1b4e94474fc' },
    { index: 3, nonce: 761602, hash: '0000033eb257b3bd16197cf2c9d44b61c1597ef58851752aa8adddcd8fd94b3e' },
];
