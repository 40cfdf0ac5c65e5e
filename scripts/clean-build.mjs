// @ts-check
/**
 * Before every build (npm run build, npm test): the build output of every project goes, and with it each project's
 * tsbuildinfo, so `tsc -b` builds everything again: a source deleted or renamed leaves no stale module behind (a
 * function file renamed in src/ would otherwise be registered twice, a deleted test would keep running).
 *
 *   node scripts/clean-build.mjs
 */
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
for (const out of ['dist/src', 'dist/test', 'dist/bench', 'dist/scripts', 'devhost/dist', 'testkit/dist']) {
    rmSync(join(root, out), { recursive: true, force: true });
}
