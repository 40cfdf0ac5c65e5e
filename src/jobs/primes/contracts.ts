import { z } from 'zod';

/**
 * What the CountPrimes orchestration and its activity exchange, and its output (get_prime_count_result's
 * `result`). Stored by the Durable backend, so every field is plain JSON.
 */

export const COUNT_PRIMES = 'CountPrimes';
export const COUNT_SEGMENT = 'CountPrimeSegment';

/** Numbers per CountPrimeSegment call: a sieve of 2.5 MB, about 0.1 s of one core, so a call holds its Node worker's event loop only briefly. */
export const SEGMENT_SIZE = 5_000_000;
/**
 * The bounds the orchestration and the activity hold inputs to, fixed (never a setting), so a redeploy
 * never changes a running workflow. Below 10^12 every number and product here is an exact double.
 */
export const BELOW_LIMIT = 1e12;
export const SEGMENT_LIMIT = 50_000_000;
export const IN_FLIGHT_LIMIT = 16;

const count = z.number().int().min(0);

/** CountPrimes' input: everything its replay depends on travels here. */
export interface CountPrimesInput {
    below: number;
    segment_size: number;
    in_flight: number;
    /** The lifetime an MCP task asked for, in ms from the instance's creation; absent for no limit. */
    task_ttl_ms?: number;
}

export const primeCountResultSchema = z.object({
    below: count.describe('The bound: primes p with p < below were counted.'),
    count: count.describe('How many primes are below `below` (π(below − 1)).'),
    segments: count.describe('Segments the numbers were counted in, one activity each.'),
    elapsed_ms: count.describe('Wall time of the workflow, from its start to its last segment.'),
});
export type PrimeCountResult = z.infer<typeof primeCountResultSchema>;

/** The progress CountPrimes publishes as its custom status. */
export const primeProgressSchema = z.object({
    segments_done: count.describe('Segments counted so far.'),
    segments_total: count.describe('Segments in the run.'),
});
export type PrimeProgress = z.infer<typeof primeProgressSchema>;

/** One CountPrimeSegment call: the primes p with start <= p < end. */
export interface SegmentInput {
    start: number;
    end: number;
}

export const segmentOutputSchema = z.object({ start: count, end: count, count });
export type SegmentOutput = z.infer<typeof segmentOutputSchema>;

/** How many segments `below` numbers make. */
export function segmentsOf(below: number, segmentSize: number): number {
    return Math.ceil(below / segmentSize);
}
