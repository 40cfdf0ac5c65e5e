import { duration, grouped, type ResultSection, type ResultView } from '../resultView';
import type { PrimeCountResult } from './contracts';

/**
 * The prime count's view of a completed result: the count and the range it covers. The template for a job's own
 * renderer (docs/how-it-works.md): a file named resultView.ts in the job's folder exporting `resultView`, with the
 * job's name and a `render` from the result to sections (src/jobs/resultView.ts); plain code, no DOM. A job without
 * one still gets a view, laid out from its result schema.
 */

function isCount(result: Record<string, unknown>): result is PrimeCountResult {
    return typeof result.count === 'number' && typeof result.below === 'number';
}

export const resultView: ResultView = {
    job: 'count_primes',
    render(result): ResultSection[] {
        if (!isCount(result)) return [];
        return [
            {
                kind: 'facts',
                facts: [
                    { label: 'Primes', value: grouped(result.count), title: `π(${result.below - 1})` },
                    { label: 'Range', value: `2 ≤ p < ${grouped(result.below)}`, title: 'Every prime p below the bound was counted.' },
                    { label: 'Segments', value: grouped(result.segments), title: 'Pieces the range was counted in, one activity each.' },
                    { label: 'Counting time', value: duration(result.elapsed_ms) },
                ],
            },
        ];
    },
};
