/**
 * The benchmarks, in the order they run and appear in BENCHMARKS.md: each a measurement (bench/<module>.ts)
 * and the template that renders its figures (bench/report/<module>.ts).
 */
import type { BenchOptions } from './common';
import { measureCompletionLag } from './completionLag';
import { measureKeyedStart } from './keyedStart';
import { measureLoad } from './load';
import { measureMemory } from './memory';
import { measureMining } from './mining';
import { measureOrchestration } from './orchestration';
import { measurePastBudget } from './pastBudget';
import { renderCompletionLag } from './report/completionLag';
import { renderKeyedStart } from './report/keyedStart';
import { renderLoad } from './report/load';
import { renderMemory } from './report/memory';
import { renderMining } from './report/mining';
import { renderOrchestration } from './report/orchestration';
import { renderPastBudget } from './report/pastBudget';
import { renderResponsiveness } from './report/responsiveness';
import { renderScaleOut } from './report/scaleOut';
import { renderStatusReads } from './report/statusReads';
import { renderThroughput } from './report/throughput';
import { measureResponsiveness } from './responsiveness';
import { measureScaleOut } from './scaleOut';
import { measureStatusReads } from './statusReads';
import { measureThroughput } from './throughput';

export interface BenchModule {
    name: string;
    /** Measures, then renders the figures as the module's section (`## <Title>` first). */
    run(opts: BenchOptions): Promise<string>;
}

/** Pairs a measurement with its template, so that the figures' type is checked between the two. */
function benchModule<F>(name: string, measure: (opts: BenchOptions) => Promise<F>, render: (figures: F) => string): BenchModule {
    return { name, run: async (opts) => render(await measure(opts)) };
}

export const MODULES: readonly BenchModule[] = [
    benchModule('orchestration', (opts) => measureOrchestration(opts), renderOrchestration),
    benchModule('mining', (opts) => measureMining(opts), renderMining),
    benchModule('responsiveness', measureResponsiveness, renderResponsiveness),
    benchModule('completionLag', measureCompletionLag, renderCompletionLag),
    benchModule('pastBudget', measurePastBudget, renderPastBudget),
    benchModule('statusReads', measureStatusReads, renderStatusReads),
    benchModule('keyedStart', measureKeyedStart, renderKeyedStart),
    benchModule('throughput', measureThroughput, renderThroughput),
    benchModule('memory', measureMemory, renderMemory),
    // --quick: 20 clients instead of 50; --smoke: 4 at difficulty 16.
    benchModule('load', (opts) => measureLoad(opts.smoke ? { clients: 4, difficulty: 16 } : opts.quick ? { clients: 20 } : {}), renderLoad),
    benchModule('scaleOut', measureScaleOut, renderScaleOut),
];
