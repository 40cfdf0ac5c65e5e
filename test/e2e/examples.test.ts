import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AppOnAzurite, repoRoot, runNode, startAppOnAzurite } from '@mcp-mining/testkit';

/**
 * The README's "Try it" client is a file in the repo (examples/try.mjs) that runs as printed: the README's block
 * is that file's code, and the file, run with Node against the local host, gets a completed mining answer.
 */

const EXAMPLE = join(repoRoot, 'examples', 'try.mjs');
const LOCAL_URL = 'http://localhost:7071/api/mcp';

/** The code of a JavaScript text: its lines but comments and blank ones. */
const codeOf = (text: string) => text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));

describe('examples/try.mjs, the README\'s "Try it"', () => {
    let app: AppOnAzurite;
    before(async () => {
        app = await startAppOnAzurite('examples');
    });
    after(async () => {
        await app?.stop();
    });

    test('is the README\'s block, fenced as the JavaScript it is', () => {
        const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
        const block = /### Try it[\s\S]*?```(\w+)\n([\s\S]*?)```/.exec(readme);
        assert.ok(block, 'README.md has a fenced block under "Try it"');
        assert.equal(block[1], 'js');
        assert.deepEqual(codeOf(block[2] ?? ''), codeOf(readFileSync(EXAMPLE, 'utf8')));
    });

    test('runs with Node against the local host and gets the mining answer, completed', async () => {
        // The same file with the test host's URL, beside the build so that its imports resolve from node_modules.
        const dir = join(repoRoot, 'dist', 'examples-run');
        mkdirSync(dir, { recursive: true });
        const copy = join(dir, 'try.mjs');
        writeFileSync(copy, readFileSync(EXAMPLE, 'utf8').replace(LOCAL_URL, app.mcpUrl.href));
        const run = await runNode([copy], { cwd: repoRoot });
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /structuredContent/);
        assert.match(run.stdout, /status: 'completed'/);
        assert.match(run.stdout, /difficulty: 12/);
    });
});
