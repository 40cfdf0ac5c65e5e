import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '@mcp-mining/testkit';

/**
 * The repository's packages and what each may import of another (test/README.md, README "Layout"): the function app
 * (src/) imports no other part; the local host (devhost/, @mcp-mining/devhost) imports nothing of the app or the kit;
 * the test kit (testkit/, @mcp-mining/testkit) uses the host through its entry and nothing of the app; the app's
 * tests, the benchmarks and the scripts use the host and the kit through their declared entries only (the
 * `exports` of their package.json), never a file inside them. The local host's own tests may reach its internals.
 */

interface Area {
    /** Folder, from the repository root. */
    root: string;
    /** Folders under `root` that belong to another area. */
    except?: string[];
    /**
     * Other areas whose files it may import by path: the root package's own parts (the app's tests read the app and
     * the benchmarks' rules; the benchmarks measure the app), or its own package's internals (the host's tests).
     */
    byPath: string[];
    /** The workspace packages it may import, through their entries. */
    packages: string[];
}

const AREAS: Record<string, Area> = {
    app: { root: 'src', byPath: [], packages: [] },
    devhost: { root: 'devhost', except: ['test'], byPath: [], packages: [] },
    'devhost tests': { root: 'devhost/test', byPath: ['devhost'], packages: ['@mcp-mining/testkit'] },
    testkit: { root: 'testkit', byPath: [], packages: ['@mcp-mining/devhost'] },
    tests: { root: 'test', byPath: ['app', 'bench'], packages: ['@mcp-mining/devhost', '@mcp-mining/testkit'] },
    bench: { root: 'bench', byPath: ['app'], packages: ['@mcp-mining/devhost', '@mcp-mining/testkit'] },
    scripts: { root: 'scripts', byPath: [], packages: ['@mcp-mining/testkit'] },
};

/** A workspace package's declared entries: its name and each subpath of its `exports` (package.json aside). */
function entriesOf(folder: string): string[] {
    const pkg = JSON.parse(readFileSync(join(repoRoot, folder, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    return Object.keys(pkg.exports)
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}
const ENTRIES = new Map([
    ['@mcp-mining/devhost', entriesOf('devhost')],
    ['@mcp-mining/testkit', entriesOf('testkit')],
]);

function sourceFiles(dir: string, skip: Set<string>): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return ['node_modules', 'dist', 'bin', 'obj'].includes(entry.name) || skip.has(path) ? [] : sourceFiles(path, skip);
        return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
}

/** Every module specifier a file names: static and dynamic imports, requires and require.resolve. */
function specifiers(text: string): string[] {
    const found = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1] as string);
    return found.concat([...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] as string));
}

/** Which area a repository path is in (the deepest root that holds it). */
function areaOf(path: string): string | undefined {
    const rel = relative(repoRoot, path).split(sep).join('/');
    let best: string | undefined;
    for (const [name, area] of Object.entries(AREAS)) {
        if ((rel === area.root || rel.startsWith(`${area.root}/`)) && (best === undefined || area.root.length > (AREAS[best] as Area).root.length)) best = name;
    }
    return best;
}

describe('package boundaries', () => {
    for (const [name, area] of Object.entries(AREAS)) {
        it(`${name} (${area.root}/) imports other parts only as the layout allows`, () => {
            const root = join(repoRoot, area.root);
            const files = sourceFiles(root, new Set((area.except ?? []).map((folder) => join(root, folder))));
            assert.ok(files.length > 0, `read no source under ${area.root}/`);
            const offending: string[] = [];
            for (const file of files) {
                for (const spec of specifiers(readFileSync(file, 'utf8'))) {
                    const where = `${relative(repoRoot, file)} -> ${spec}`;
                    if (spec.startsWith('.')) {
                        const target = areaOf(resolve(dirname(file), spec));
                        if (target === name) continue;
                        if (target !== undefined && area.byPath.includes(target)) continue;
                        // Outside every area (package.json, infra/hooks, examples): read as files, not code of a part.
                        if (target === undefined) continue;
                        offending.push(`${where} (reaches into ${target})`);
                    } else if (spec.startsWith('@mcp-mining/')) {
                        const pkg = spec.split('/').slice(0, 2).join('/');
                        if (!area.packages.includes(pkg)) offending.push(`${where} (${name} may not use ${pkg})`);
                        else if (!(ENTRIES.get(pkg) ?? []).includes(spec)) offending.push(`${where} (not a declared entry of ${pkg})`);
                    }
                }
            }
            assert.deepEqual(offending, []);
        });
    }

    it('the packages declare the entries their users import, and nothing under dist is imported by path', () => {
        assert.deepEqual(ENTRIES.get('@mcp-mining/devhost'), ['@mcp-mining/devhost']);
        assert.deepEqual(ENTRIES.get('@mcp-mining/testkit'), ['@mcp-mining/testkit', '@mcp-mining/testkit/arm', '@mcp-mining/testkit/perTestTimeout']);
    });
});
