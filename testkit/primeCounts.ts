/**
 * Known values of π(x), the number of primes ≤ x (OEIS A006880, https://oeis.org/A006880), to check a
 * count_primes result against numbers the app never computed. `below` counts primes p < below, so
 * below = 10^k + 1 would be π(10^k); 10^k itself is not prime, so below = 10^k gives π(10^k) as well.
 */
export const PRIMES_BELOW: ReadonlyMap<number, number> = new Map([
    [10, 4],
    [100, 25],
    [1000, 168],
    [10 ** 4, 1229],
    [10 ** 5, 9592],
    [10 ** 6, 78_498],
    [10 ** 7, 664_579],
    [10 ** 8, 5_761_455],
    [10 ** 9, 50_847_534],
    [10 ** 10, 455_052_511],
]);

/** The primes below `below` by trial division: slow, independent of the app's sieve, for small bounds. */
export function primesBelowByTrialDivision(below: number): number {
    let count = 0;
    for (let n = 2; n < below; n++) {
        let prime = true;
        for (let d = 2; d * d <= n; d++) {
            if (n % d === 0) {
                prime = false;
                break;
            }
        }
        if (prime) count++;
    }
    return count;
}
