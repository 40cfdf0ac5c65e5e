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

/** Difficulty 23 from GENESIS (block 0 happens to need no more work than at 22). */
export const CHAIN_23: readonly ExpectedBlock[] = [
    { index: 0, nonce: 688931, hash: '0000017ad79bcd359e65c0a4a1cbf77525d01dfc14982a5800364c4a52b5c914' },
    { index: 1, nonce: 13359626, hash: '00000061fe70224cdbc5e6a22fb1ee33bd69e990d89fd9147d75b854d87f451b' },
    { index: 2, nonce: 5422072, hash: '00000034bf78cb7292cda727d30e2c0fbadb5ee1d8d33a3df523a41633e09bc4' },
    { index: 3, nonce: 1111280, hash: '000000fcf785a5657848b78fbe627c91a4b4bf149525555b5066f4349d234238' },
];
