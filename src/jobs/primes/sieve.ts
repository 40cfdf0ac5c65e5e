/**
 * Counting primes in a range with a segmented sieve of Eratosthenes over the odd numbers: the odd primes up
 * to √end strike out their multiples in [start, end). Exact for end up to 2^53 in principle; the job holds
 * end to BELOW_LIMIT, where √end stays small (10^6) and the segment's bytes to SEGMENT_LIMIT / 2.
 */

/** ⌊√n⌋, exact (Math.sqrt may round up near a square). */
function isqrt(n: number): number {
    let root = Math.floor(Math.sqrt(n));
    while (root * root > n) root--;
    while ((root + 1) * (root + 1) <= n) root++;
    return root;
}

/** The odd primes up to `limit`, by a plain sieve. */
function oddPrimesUpTo(limit: number): number[] {
    const composite = new Uint8Array(limit + 1);
    const primes: number[] = [];
    for (let n = 3; n <= limit; n += 2) {
        if (composite[n]) continue;
        primes.push(n);
        for (let m = n * n; m <= limit; m += 2 * n) composite[m] = 1;
    }
    return primes;
}

/** How many primes p satisfy start <= p < end. */
export function countPrimesIn(start: number, end: number): number {
    let count = start <= 2 && end > 2 ? 1 : 0;
    let first = Math.max(start, 3);
    if (first % 2 === 0) first++;
    if (first >= end) return count;
    // The odd numbers first, first + 2, …, below end; slot j holds first + 2j.
    const slots = Math.floor((end - 1 - first) / 2) + 1;
    const composite = new Uint8Array(slots);
    for (const p of oddPrimesUpTo(isqrt(end - 1))) {
        let multiple = Math.max(p * p, Math.ceil(first / p) * p);
        if (multiple % 2 === 0) multiple += p;
        for (let slot = (multiple - first) / 2; slot < slots; slot += p) composite[slot] = 1;
    }
    for (let slot = 0; slot < slots; slot++) if (composite[slot] === 0) count++;
    return count;
}
