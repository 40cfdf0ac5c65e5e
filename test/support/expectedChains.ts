/**
 * Chains computed once, independently of the app, with node:crypto and a plain loop over nonces from 0
 * (the hashing rule in docs/contract.md; too slow to run in every test at these difficulties):
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

/**
 * Difficulty 25 from GENESIS: 169,870,415 attempts, a few seconds on two cores with the SIMD kernel, so a
 * run is still going when a test interrupts it (about 3 minutes with the plain loop above).
 */
export const CHAIN_25: readonly ExpectedBlock[] = [
    { index: 0, nonce: 54732303, hash: '00000029f09ca1b4f44465abddcde36ae230aa0c28b33f76bceadd7d14f4745e' },
    { index: 1, nonce: 21938503, hash: '0000007a9101cdd3b501379b35126cd5021f83fd812753074820fb3b143742d0' },
    { index: 2, nonce: 56825220, hash: '0000000a6e4264cfd6b37b809ddb0b42bb85a85ab2b1007fad994be1e769e2de' },
    { index: 3, nonce: 36374385, hash: '0000001f8ce1563aae2a5bee7b2b34a77d119440123d7a58b16f030b5163e9f2' },
];
