/**
 * Summaries of sample lists. An empty list has no summary: undefined, which the report says in words,
 * where NaN or -Infinity would have reached BENCHMARKS.md.
 */

/** The p-th percentile (nearest rank) of the samples. */
export function percentile(samples: readonly number[], p: number): number | undefined {
    if (samples.length === 0) return undefined;
    const sorted = [...samples].sort((a, b) => a - b);
    const rank = Math.ceil((p / 100) * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The median by nearest rank: of an even count, the lower middle sample. */
export const median = (samples: readonly number[]) => percentile(samples, 50);

/** The upper middle sample of an even count: the median the Mining section has always taken. */
export function upperMedian(samples: readonly number[]): number | undefined {
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

export function mean(samples: readonly number[]): number | undefined {
    return samples.length === 0 ? undefined : samples.reduce((a, b) => a + b, 0) / samples.length;
}

export function max(samples: readonly number[]): number | undefined {
    return samples.length === 0 ? undefined : Math.max(...samples);
}

export function min(samples: readonly number[]): number | undefined {
    return samples.length === 0 ? undefined : Math.min(...samples);
}
