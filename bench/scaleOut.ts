/**
 * Scale-out: the cost of a range (dispatch to answer) on each Durable backend (bench/rangeCost.ts); one
 * fanned-out MineChain run on one host of the real extension pinned to one core, against the same run on two
 * hosts of one task hub pinned to a core each (bench/pinnedHosts.ts); and from those, the wall-time model for
 * N instances and over the sizes and windows the defaults' rules read (bench/scaleModelFigures.ts). Every
 * configuration is measured in the same run, taking turns.
 *
 *   npm run build && node dist/bench/scaleOut.js [--quick | --smoke]
 *
 * --smoke runs the cost per range on the TypeScript engine only (the extension's hosts would take most of a
 * smoke run); the pinned hosts need the extension and are skipped then, saying why.
 */
import { parseConfig } from '../src/config';
import type { BenchApp } from './appHost';
import { type Backend, extensionUnavailable, startBenchAzurite } from './backends';
import { type BenchOptions, load1, runIfMain } from './common';
import type { ScaleOutFigures } from './figures/scaleOut';
import { measurePinnedHosts } from './pinnedHosts';
import { measureRangeCost } from './rangeCost';
import { renderScaleOut } from './report/scaleOut';
import { scaleModelFigures } from './scaleModelFigures';

export async function measureScaleOut(opts: BenchOptions): Promise<ScaleOutFigures> {
    const loadBefore = load1();
    const extensionSkipped = extensionUnavailable(opts);
    const backends: Backend[] = extensionSkipped === false ? ['ts', 'extension'] : ['ts'];
    const config = parseConfig({ TASKHUB_NAME: 'bench' });
    const azurite = await startBenchAzurite(opts);
    const apps: BenchApp[] = [];
    try {
        // 1. The cost of a range on each backend, sequential and with ranges in flight.
        const rangeCost = await measureRangeCost(opts, backends, azurite.connectionString, apps);
        for (const app of apps.splice(0)) await app.stop();

        // 2. One chain on one pinned host against two pinned hosts on one task hub.
        const pinned = extensionSkipped === false && !opts.smoke ? await measurePinnedHosts(azurite.connectionString, opts.quick ? 2 : 5, apps) : undefined;
        const model = scaleModelFigures(rangeCost, pinned, { rangeSize: config.rangeSize, parallelRanges: config.parallelRanges });
        return { loadBefore, loadAfter: load1(), extensionSkipped, rangeCost, pinned, model };
    } finally {
        for (const app of apps) await app.stop();
        await azurite.stop();
    }
}

runIfMain(module, measureScaleOut, renderScaleOut);
