import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compiledGraph, cycles, sourceGraph } from '../support/importGraph';

/**
 * devhost/ has no import circles, and its Durable seam stays a seam: the modules are read as compiled
 * (dist/devhost, the imports that run) and as written (devhost/, type imports included).
 */

describe('devhost imports', () => {
    it('the compiled modules import one another without a circle', () => {
        const graph = compiledGraph('devhost');
        assert.ok(graph.size > 50, `read ${graph.size} compiled modules of devhost/`);
        assert.ok(graph.get('host')?.includes('durable/tsEngine/tsEngineBackend'), 'the walk sees host.ts import a backend');
        assert.deepEqual(cycles(graph), []);
    });

    it('the sources, type imports included, import one another without a circle (as src/ is held)', () => {
        const graph = sourceGraph('devhost');
        assert.ok(graph.has('durable/tsEngine/engine/engineComponents'), 'the walk sees the engine\'s ports');
        assert.deepEqual(cycles(graph), []);
    });

    it('the Durable seam imports neither backend, the backends not each other, and only host.ts picks one', () => {
        const graph = sourceGraph('devhost');
        const intoBackend = (name: string, backend: string) => (graph.get(name) ?? []).some((to) => to.startsWith(`durable/${backend}/`));
        for (const shared of ['durable/seam', 'durable/clientBinding', 'durable/workerData']) {
            assert.ok(graph.has(shared), shared);
            assert.ok(!intoBackend(shared, 'tsEngine') && !intoBackend(shared, 'realExtension'), shared);
        }
        for (const name of graph.keys()) {
            if (name.startsWith('durable/tsEngine/')) assert.ok(!intoBackend(name, 'realExtension'), name);
            if (name.startsWith('durable/realExtension/')) assert.ok(!intoBackend(name, 'tsEngine'), name);
        }
        const pickers = [...graph.keys()].filter(
            (name) => !name.startsWith('durable/') && (intoBackend(name, 'tsEngine') || intoBackend(name, 'realExtension'))
        );
        // The CLI asks the .NET project whether `dotnet` is there, before any backend starts.
        assert.deepEqual(pickers.sort(), ['cli', 'host']);
    });
});
