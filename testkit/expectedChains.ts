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

/**
 * Difficulty 22 from GENESIS: 5,661,459 attempts, under a second on idle cores with the SIMD kernel, for tests
 * that fail one range on purpose and must still finish quickly on a loaded machine (about a minute with the
 * plain loop above).
 */
export const CHAIN_22: readonly ExpectedBlock[] = [
    { index: 0, nonce: 688931, hash: '0000017ad79bcd359e65c0a4a1cbf77525d01dfc14982a5800364c4a52b5c914' },
    { index: 1, nonce: 1554080, hash: '0000028510c98974f710ae421ae02e454c737e18ffd087115bd9a7d7f4022499' },
    { index: 2, nonce: 2656842, hash: '00000101ab3c95772dcdf17056d29ae7e83febe698f69339e55fd1b4e94474fc' },
    { index: 3, nonce: 761602, hash: '0000033eb257b3bd16197cf2c9d44b61c1597ef58851752aa8adddcd8fd94b3e' },
];

/**
 * Difficulty 12 from GENESIS: 25,494 attempts, milliseconds on any machine, for runs that stay running only
 * because a test holds their ranges (invocationHolds): the wait for the next held range is never a wait for hashing.
 */
export const CHAIN_12: readonly ExpectedBlock[] = [
    { index: 0, nonce: 14817, hash: '0005fc300b157a1f8f24bdbd7e3c51076206b28e7a0171645e0658051d08a674' },
    { index: 1, nonce: 4053, hash: '0002ca41b93982479868a8a85b6339f8ec31e8e6cbdb4612648cb39ac1af5543' },
    { index: 2, nonce: 5101, hash: '0001fada894ae1ca79d5a9ffd1f3f270ae58fe637204c0a5bac270dba4994687' },
    { index: 3, nonce: 1519, hash: '00048598c9399a73d7ee5ec55998dd353b5d32518c15662fa2a44bc0e552e125' },
];
