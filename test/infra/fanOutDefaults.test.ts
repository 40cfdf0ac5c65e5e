/**
 * RANGE_SIZE and PARALLEL_RANGES are a documented decision (docs/how-it-works.md, "Defaults and why"): their rules
 * (bench/rules/rangeSize.ts, bench/rules/parallelRanges.ts), applied to the model's figures BENCHMARKS.md's
 * "Scale-out", "Defaults" records, must hold for src/config.ts's defaults, the rules' constants must be the
 * deployment's (functionTimeout, the activity slots of the default instance), and the docs' table must state the
 * defaults and the figures they rest on. The benchmark itself never picks either.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { checkParallelRanges, DEFAULT_INSTANCE_SLOTS } from '../../bench/rules/parallelRanges';
import { allowedSize, checkRangeSize, FUNCTION_TIMEOUT_SECONDS, worstSlowdowns } from '../../bench/rules/rangeSize';
import { parseConfig } from '../../src/config';
import { documentedDefault, recordedSizeRows, recordedTwoHosts, recordedWindows } from './benchmarkFigures';
import { readJson, repoRoot } from './files';

const defaults = parseConfig({ TASKHUB_NAME: 'probe' });
const pow2 = (value: number) => `2^${Math.log2(value)}`;

describe('RANGE_SIZE: the documented decision, its rule and the figures in BENCHMARKS.md', () => {
    it("src/config.ts's default meets the rule with the sizes BENCHMARKS.md records", () => {
        const rows = recordedSizeRows();
        const verdict = checkRangeSize(defaults.rangeSize, rows);
        assert.ok(
            verdict.met,
            `RANGE_SIZE ${pow2(defaults.rangeSize)} does not meet its rule with BENCHMARKS.md's figures (worst ${verdict.worst}, best ${verdict.bestWorst}` +
                `${verdict.larger ? `, ${pow2(verdict.larger.size)} larger and within 5%` : ''}): change the setting or the rule in docs/how-it-works.md, "Defaults and why"`
        );
        // The sizes next to it do not: the rule has one answer.
        assert.deepEqual(
            rows.filter((r) => checkRangeSize(r.size, rows).met).map((r) => r.size),
            [defaults.rangeSize]
        );
    });

    it("the recorded worst slowdowns and the sizes marked too long are the rule's own reading of the recorded times", () => {
        const rows = recordedSizeRows();
        const worst = worstSlowdowns(rows);
        // The times are recorded to 0.1 s, the worst to 0.001: they agree to within that rounding.
        rows.forEach((row, k) => assert.ok(Math.abs((worst[k] as number) - row.worst) < 0.005, `${pow2(row.size)}: worst ${row.worst} recorded, ${worst[k]} from its times`));
        rows.forEach((row) => assert.equal(!allowedSize(row), row.tooLong, `${pow2(row.size)}: "too long" at ${row.slowCoreSeconds} s`));
    });

    it("the rule's functionTimeout is host.json's", () => {
        const hostJson = readJson('host.json') as { functionTimeout?: string };
        const [h, m, s] = String(hostJson.functionTimeout).split(':').map(Number);
        assert.equal((h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0), FUNCTION_TIMEOUT_SECONDS);
    });

    it('docs/how-it-works.md states the default and the figures it rests on', () => {
        const row = documentedDefault('RANGE_SIZE');
        assert.equal(row.value, pow2(defaults.rangeSize), "the documented default is not src/config.ts's");
        const own = recordedSizeRows().find((r) => r.size === defaults.rangeSize);
        assert.ok(own, `BENCHMARKS.md, Scale-out, Defaults: no row for ${pow2(defaults.rangeSize)}`);
        assert.ok(row.figures.includes(`${own.worst.toFixed(3)} at ${pow2(own.size)}`), `the documented figures do not quote BENCHMARKS.md's worst at the default, ${own.worst.toFixed(3)}`);
    });
});

describe('PARALLEL_RANGES: the documented decision, its rule and the figures in BENCHMARKS.md', () => {
    it("src/config.ts's default meets the rule with the windows BENCHMARKS.md records", () => {
        const { rangeSize, rows } = recordedWindows();
        assert.equal(rangeSize, defaults.rangeSize, 'BENCHMARKS.md modelled the windows at another RANGE_SIZE than the default');
        const verdict = checkParallelRanges(defaults.parallelRanges, rows);
        assert.ok(
            verdict.met,
            `PARALLEL_RANGES ${defaults.parallelRanges} does not meet its rule with BENCHMARKS.md's figures (busy: ${verdict.busy}, spreads: ${verdict.spreads}` +
                `${verdict.smaller ? `, ${verdict.smaller.parallel} smaller and meeting both` : ''}): change the setting or the rule in docs/how-it-works.md, "Defaults and why"`
        );
        assert.deepEqual(
            rows.filter((r) => checkParallelRanges(r.parallel, rows).met).map((r) => r.parallel),
            [defaults.parallelRanges]
        );
    });

    it("the rule's activity slots are those the deployment gives the default instance size", async () => {
        const hook = (await import(pathToFileURL(join(repoRoot(), 'infra/hooks/stage-package.mjs')).href)) as {
            SLOTS_BY_MEMORY_MB: Readonly<Record<string, number>>;
            DEFAULT_INSTANCE_MEMORY_MB: number;
        };
        assert.equal(hook.SLOTS_BY_MEMORY_MB[String(hook.DEFAULT_INSTANCE_MEMORY_MB)], DEFAULT_INSTANCE_SLOTS);
    });

    it('docs/how-it-works.md states the default and the figures it rests on', () => {
        const row = documentedDefault('PARALLEL_RANGES');
        assert.equal(Number(row.value), defaults.parallelRanges, "the documented default is not src/config.ts's");
        const own = recordedWindows().rows.find((r) => r.parallel === defaults.parallelRanges);
        assert.ok(own, `BENCHMARKS.md, Scale-out, Defaults: no window ${defaults.parallelRanges}`);
        assert.ok(row.figures.includes(`${own.seconds.toFixed(1)} s at P = ${own.parallel}`), `the documented figures do not quote BENCHMARKS.md's ${own.seconds.toFixed(1)} s at P = ${own.parallel}`);
        const twoHosts = recordedTwoHosts();
        assert.equal(twoHosts.parallelRanges, defaults.parallelRanges, 'BENCHMARKS.md measured two hosts at another PARALLEL_RANGES than the default');
        assert.ok(row.figures.includes(`${twoHosts.ratio.toFixed(2)}x`), `the documented figures do not quote BENCHMARKS.md's two-host ratio, ${twoHosts.ratio.toFixed(2)}x`);
    });
});
