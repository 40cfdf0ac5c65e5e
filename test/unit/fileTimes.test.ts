import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '@mcp-mining/testkit';

/**
 * test/runner/fileTimes.json orders a fresh clone's run (CI's) longest first: it names only test files that exist
 * (a renamed file would lose its place), and gives each a whole number of seconds.
 */
test('fileTimes.json names existing compiled test files, each with whole seconds', () => {
    const times = JSON.parse(readFileSync(join(repoRoot, 'test', 'runner', 'fileTimes.json'), 'utf8')) as Record<string, unknown>;
    const entries = Object.entries(times);
    assert.ok(entries.length > 0);
    for (const [file, seconds] of entries) {
        assert.match(file, /^(dist\/test|devhost\/dist\/test)\/.+\.test\.js$/, file);
        assert.ok(existsSync(join(repoRoot, file)), `${file} is no test file of this repository: refresh fileTimes.json`);
        assert.ok(Number.isInteger(seconds) && (seconds as number) > 0, `${file}: ${String(seconds)}`);
    }
});
