import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { compiledGraph, cycles, repoRoot, sourceGraph } from '@mcp-mining/testkit';

const BENCH = join(repoRoot, 'bench');

/**
 * bench/ has no import circles, read as compiled (dist/bench, the requires that run) and as written (type imports
 * included): a module imports its template in bench/report/ to run alone, so both take the figures' types from
 * bench/figures/ and the template never imports the module back.
 */

describe('bench imports', () => {
    it('the compiled modules import one another without a circle', () => {
        const graph = compiledGraph(BENCH, join(repoRoot, 'dist', 'bench'));
        assert.ok(graph.size > 30, `read ${graph.size} compiled modules of bench/`);
        assert.ok(graph.get('modules')?.includes('report/mining'), 'the walk sees modules import a template in report/');
        assert.deepEqual(cycles(graph), []);
    });

    it('the sources, type imports included, have no circle either', () => {
        const graph = sourceGraph(BENCH);
        assert.ok(graph.get('report/mining')?.length, 'the walk sees report/mining import something');
        assert.deepEqual(cycles(graph), []);
    });
});
