import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The relative-import graph of a source folder, read as compiled (the `require`s that run) or as written
 * (type imports included), and the circles in it. For the import tests of src/ and devhost/.
 */

/** Build output and installed packages are not the folder's sources. */
const NOT_SOURCES = new Set(['dist', 'node_modules']);

function filesUnder(dir: string, ext: string): string[] {
    const found: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
            if (!NOT_SOURCES.has(entry.name)) found.push(...filesUnder(path, ext));
        }
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

/** The graph of the compiled modules in `compiled` whose source in `sources` still exists (a stale file is not the code). */
export function compiledGraph(sources: string, compiled: string): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of filesUnder(compiled, '.js')) {
        const name = relative(compiled, file).replace(/\.js$/, '');
        if (!existsSync(join(sources, `${name}.ts`))) continue;
        graph.set(name, relativeImports(file, compiled, /require\("([^"]+)"\)/g));
    }
    return graph;
}

/** The graph of the TypeScript sources in `sources` (a folder), `import type` included. */
export function sourceGraph(sources: string): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of filesUnder(sources, '.ts')) {
        graph.set(relative(sources, file).replace(/\.ts$/, ''), relativeImports(file, sources, /\bfrom '([^']+)'/g));
    }
    return graph;
}

/** Every cycle found by a depth-first walk, each as the modules on it. */
export function cycles(graph: Map<string, string[]>): string[][] {
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
