/** The p-th percentile (nearest rank) of the samples. */
export function percentile(samples: readonly number[], p: number): number {
    if (samples.length === 0) return Number.NaN;
    const sorted = [...samples].sort((a, b) => a - b);
    const rank = Math.ceil((p / 100) * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function formatMs(ms: number): string {
    return `${ms.toFixed(1)} ms`;
}
