// @ts-check
/**
 * Which compiled test files a run takes, and in what order they start.
 *
 * - Found wherever they are: Node 20's `--test` takes no globs (they came in Node 21) and, given a folder, would
 *   also run every helper under a folder named test; so this walks the compiled folders for `*.test.js` itself.
 * - Named by their source too: `test/e2e/mcp.test.ts` means `dist/test/e2e/mcp.test.js`, `devhost/test/x.test.ts`
 *   `devhost/dist/test/x.test.js`; a folder means every test file under it.
 * - Longest first: the run is as long as its slowest file allows, so the files that took longest last time (kept
 *   in node_modules/.cache, the npm convention for a tool's cache) start first. A fresh clone, as CI runs, has no
 *   cache: it takes the times in fileTimes.json beside this file (a whole run's, copied from that cache), and a file
 *   in neither gets its folder's typical time. One long file left for the end would keep every other slot idle.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Where the compiled tests are: the app's (from test/), and the local host's own (from devhost/test/). */
export const COMPILED_FOLDERS = ['dist/test', 'devhost/dist/test'];

/**
 * The inner loop (`npm run test:quick`): the app's unit tests, the docs checks, and the contract end to end once
 * per job on the TypeScript engine. What CI runs is everything, never only this.
 */
export const QUICK_TIER = { files: ['dist/test/unit', 'dist/test/docs', 'dist/test/e2e/mcp.test.js'], backends: 'ts' };

/** A file never timed here is taken to need its folder's usual time (ms), so that end-to-end files go first. */
const TYPICAL_MS = [
    ['dist/test/e2e/', 120_000],
    ['dist/test/bench/', 90_000],
    ['devhost/dist/test/', 30_000],
    ['dist/test/infra/', 20_000],
    ['dist/test/unit/', 5_000],
    ['dist/test/docs/', 1_000],
];

/** Every `*.test.js` under `folder` (relative to `root`), sorted, as paths relative to `root`. */
function testFilesUnder(root, /** @type {string} */ folder) {
    /** @type {string[]} */
    const found = [];
    const walk = (/** @type {string} */ dir) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) walk(path);
            else if (entry.isFile() && entry.name.endsWith('.test.js')) found.push(relative(root, path));
        }
    };
    if (existsSync(join(root, folder))) walk(join(root, folder));
    return found.sort();
}

/** A source path (`test/…`, `devhost/test/…`, `.ts`) as the compiled path it runs from; a compiled path as it is. */
export function compiledPath(/** @type {string} */ given) {
    const path = given.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '');
    const js = path.replace(/\.ts$/, '.js');
    if (js.startsWith('test/')) return `dist/${js}`;
    if (js.startsWith('devhost/test/')) return js.replace(/^devhost\/test\//, 'devhost/dist/test/');
    return js;
}

/**
 * The files `paths` name (files or folders, compiled or source), or every test file when none is named. Throws when
 * a path names nothing, so that a typo never passes as a run of no tests.
 */
export function selectFiles(/** @type {string} */ root, /** @type {readonly string[]} */ paths) {
    if (paths.length === 0) return COMPILED_FOLDERS.flatMap((folder) => testFilesUnder(root, folder));
    /** @type {string[]} */
    const files = [];
    for (const given of paths) {
        const path = compiledPath(relative(root, resolve(root, given)));
        const full = join(root, path);
        if (existsSync(full) && statSync(full).isDirectory()) {
            const under = testFilesUnder(root, path);
            if (under.length === 0) throw new Error(`No test files (*.test.js) under ${path}`);
            files.push(...under);
        } else if (path.endsWith('.test.js') && existsSync(full)) {
            files.push(path);
        } else {
            throw new Error(`No test file ${path}${path === given ? '' : ` (from ${given})`}: give a *.test.js under ${COMPILED_FOLDERS.join(' or ')}, or its source`);
        }
    }
    return [...new Set(files)];
}

const timesFile = (/** @type {string} */ root) => join(root, 'node_modules', '.cache', 'mcp-mining-tests', 'times.json');

/** The times (ms) each file took in earlier runs on this machine; none on a fresh clone. */
export function readTimes(/** @type {string} */ root) {
    try {
        return /** @type {Record<string, number>} */ (JSON.parse(readFileSync(timesFile(root), 'utf8')));
    } catch {
        return {};
    }
}

/** The committed times (fileTimes.json, seconds) as ms: a fresh clone's order, under this machine's own times. */
export function committedTimes() {
    const seconds = /** @type {Record<string, number>} */ (JSON.parse(readFileSync(new URL('./fileTimes.json', import.meta.url), 'utf8')));
    return Object.fromEntries(Object.entries(seconds).map(([file, s]) => [file, s * 1000]));
}

/** Keeps this run's times for the next run's order (a file's latest time wins). */
export function writeTimes(/** @type {string} */ root, /** @type {Record<string, number>} */ times) {
    const file = timesFile(root);
    try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, JSON.stringify({ ...readTimes(root), ...times }, null, 1));
    } catch {
        // Only the order of a later run depends on it.
    }
}

/** The time a file is expected to take: its own last time, else its folder's usual one. */
export function expectedMs(/** @type {string} */ file, /** @type {Record<string, number>} */ times) {
    const known = times[file];
    if (typeof known === 'number' && Number.isFinite(known)) return known;
    return TYPICAL_MS.find(([prefix]) => file.startsWith(String(prefix)))?.[1] ?? 10_000;
}

/** The files, longest expected first (ties in path order). */
export function longestFirst(/** @type {readonly string[]} */ files, /** @type {Record<string, number>} */ times) {
    return [...files].sort((a, b) => Number(expectedMs(b, times)) - Number(expectedMs(a, times)) || a.localeCompare(b));
}
