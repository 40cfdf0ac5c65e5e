import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/**
 * devhost/ has no import circles, and its Durable seam stays a seam: the modules are read as compiled
 * (dist/devhost, the imports that run) and as written (devhost/, type imports included, for the seam).
 */

const repo = resolve(__dirname, '..', '..', '..');
const compiled = join(repo, 'dist', 'devhost');
const sources = join(repo, 'devhost');

function filesUnder(dir: string, ext: string): string[] {
    const found: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) found.push(...filesUnder(path, ext));
        else if (entry.name.endsWith(ext) && !entry.name.endsWith('.d.ts')) found.push(path);
    }
    return found;
}

/** Relative imports of one module, as paths of modules (without extension) relative to `root`. */
function relativeImports(file: string, root: string, pattern: RegExp): string[] {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(pattern)]
        .map((match) => match[1]!)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => relative(root, resolve(dirname(file), spec)).replace(/\.(js|ts)$/, ''));
}

/** The import graph of the compiled modules whose source still exists (a stale dist file is not the code). */
function compiledGraph(): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of filesUnder(compiled, '.js')) {
        const name = relative(compiled, file).replace(/\.js$/, '');
        if (!existsSync(join(sources, `${name}.ts`))) continue;
        graph.set(name, relativeImports(file, compiled, /require\("([^"]+)"\)/g));
    }
    return graph;
}

function sourceGraph(): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of filesUnder(sources, '.ts')) {
        graph.set(relative(sources, file).replace(/\.ts$/, ''), relativeImports(file, sources, /\bfrom '([^']+)'/g));
    }
    return graph;
}

/** Every cycle found by a depth-first walk, each as the modules on it. */
function cycles(graph: Map<string, string[]>): string[][] {
    const found: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (node: string): void => {
        state.set(node, 'open');
        path.push(node);
        for (const next of graph.get(node) ?? []) {
            if (!graph.has(next)) continue;
            if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
            else if (!state.has(next)) visit(next);
        }
        path.pop();
        state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    return found;
}

describe('devhost imports', () => {
    it('the compiled modules import one another without a circle', () => {
        const graph = compiledGraph();
        assert.ok(graph.size > 50, `read ${graph.size} compiled modules of devhost/`);
        assert.ok(graph.get('host')?.includes('durable/tsEngine/tsEngineBackend'), 'the walk sees host.ts import a backend');
        assert.deepEqual(cycles(graph), []);
    });

    it('the Durable seam imports neither backend, the backends not each other, and only host.ts picks one', () => {
        const graph = sourceGraph();
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
