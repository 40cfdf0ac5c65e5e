import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { maxConcurrentActivityFunctions } from '../durable/hostJson';

/**
 * Both backends bound the activities one host runs at once by host.json's maxConcurrentActivityFunctions (the
 * real extension reads it itself; the TypeScript engine through this helper), app-setting override included.
 */

const root = resolve(__dirname, '..', '..', '..');

describe('maxConcurrentActivityFunctions', () => {
    it("reads the app's host.json: 4, as the search pool is sized for (2 per vCPU, docs/how-it-works.md)", () => {
        assert.equal(maxConcurrentActivityFunctions(root, {}), 4);
    });

    it('takes the AzureFunctionsJobHost__ override, and is undefined (the extension default) when nothing sets it', () => {
        assert.equal(maxConcurrentActivityFunctions(root, { AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: '7' }), 7);
        const bare = mkdtempSync(join(tmpdir(), 'hostjson-'));
        try {
            writeFileSync(join(bare, 'host.json'), JSON.stringify({ version: '2.0', extensions: { durableTask: { hubName: 'x' } } }));
            assert.equal(maxConcurrentActivityFunctions(bare, {}), undefined);
            assert.equal(maxConcurrentActivityFunctions(bare, { AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: 'many' }), undefined);
        } finally {
            rmSync(bare, { recursive: true, force: true });
        }
    });
});
