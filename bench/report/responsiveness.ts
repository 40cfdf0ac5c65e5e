import type { ResponsivenessFigures } from '../figures/responsiveness';
import { percentile } from '../stats';
import { bold, fmt, isFigure, loads, met, ms, ratio, result, times, verdict } from './format';

const TARGET = 2;

/** The "Responsiveness under load" section. */
export function renderResponsiveness(f: ResponsivenessFigures): string {
    const p99 = ratio(percentile(f.loaded, 99), percentile(f.idle, 99));
    const row = (name: string, samples: number[]) =>
        `| ${name} | ${samples.length} | ${ms(percentile(samples, 50))} | ${ms(percentile(samples, 90))} | ${ms(percentile(samples, 99))} |`;
    return [
        '## Responsiveness under load',
        '',
        `\`get_mining_result\` through the MCP endpoint of the local host (in-memory store), one call at a time, in ${f.rounds} ` +
            `alternating rounds of ${f.calls} calls: idle (nothing mining, asking about a finished workflow) and loaded (a ` +
            `difficulty-32 workflow mining on every worker thread; ${isFigure(f.busyCores) ? `the host used ${fmt(f.busyCores, 1)} CPUs meanwhile` : 'the CPUs the host used meanwhile: not measured (no /proc)'}). ` +
            `${loads(f.loadBefore, f.loadAfter)} Source: \`bench/responsiveness.ts\`.`,
        '',
        '| host | calls | p50 | p90 | p99 |',
        '|---|---:|---:|---:|---:|',
        row('idle', f.idle),
        row('mining on every core', f.loaded),
        '',
        result(`\`get_mining_result\` p99 with every core mining / idle: ${bold(times(p99), p99)} (target at most ${TARGET}x: ${met(verdict(p99, (r) => r <= TARGET))}).`),
    ].join('\n');
}
