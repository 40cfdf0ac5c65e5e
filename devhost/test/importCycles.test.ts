import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolve } from 'node:path';
import { compiledGraph, cycles, sourceGraph } from '@mcp-mining/testkit';

/** This package: its sources, and their build (from devhost/dist/test). */
const DEVHOST = resolve(__dirname, '..', '..');

/**
 * devhost/ has no import circles, and its Durable seam stays a seam: the modules are read as compiled
 * (devhost/dist, the imports that run) and as written (devhost/, type imports included; its tests too).
 */

describe('devhost imports', () => {
    it('the compiled modules import one another without a circle', () => {
        const graph = compiledGraph(DEVHOST, resolve(DEVHOST, 'dist'));
        assert.ok(graph.size > 50, `read ${graph.size} compiled modules of devhost/`);
        assert.ok(graph.get('host')?.includes('durable/tsEngine/tsEngineBackend'), 'the walk sees host.ts import a backend');
        assert.deepEqual(cycles(graph), []);
    });

    it('the sources, type imports included, import one another without a circle (as src/ is held)', () => {
        const graph = sourceGraph(DEVHOST);
        assert.ok(graph.has('durable/tsEngine/engine/engineComponents'), 'the walk sees the engine\'s ports');
        assert.deepEqual(cycles(graph), []);
    });

    it('the Durable seam imports neither backend, the backends not each other, and only host.ts picks one', () => {
        const graph = sourceGraph(DEVHOST);
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
            (name) => !name.startsWith('durable/') && !name.startsWith('test/') && (intoBackend(name, 'tsEngine') || intoBackend(name, 'realExtension'))
        );
        // The CLI asks the .NET project whether `dotnet` is there, before any backend starts; the package's entry
        // hands the same question to the test kit and the benchmarks. (The host's own tests reach into either.)
        assert.deepEqual(pickers.sort(), ['cli', 'host', 'index']);
    });
});
