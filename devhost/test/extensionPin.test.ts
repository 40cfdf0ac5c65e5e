import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { childEnvironment } from '../durable/realExtension/childEnvironment';
import { pinnedExtension, referencedVersion } from '../durable/realExtension/dotnetProject';
import { repoRoot } from '@mcp-mining/testkit';

/**
 * The real extension's host pins the Durable extension that the extension bundle of host.json ships
 * (bundle-versions.json names both), and runs it without the platform variables that change its defaults.
 */

/** `[4.30.0, 5.0.0)` holds `version`? (NuGet interval notation; a `*` stands for any number.) */
function inRange(range: string, version: string): boolean {
    const match = /^([[(])\s*([^,]*)\s*,\s*([^\])]*)\s*([\])])$/.exec(range.trim());
    assert.ok(match, `not an interval: ${range}`);
    const [, open, low = '', high = '', close] = match;
    const parts = (text: string) => text.split('.').map((part) => (part === '*' ? 0 : Number(part)));
    const compare = (a: string, b: string) => {
        const [x, y] = [parts(a), parts(b)];
        for (let i = 0; i < Math.max(x.length, y.length); i++) {
            const d = (x[i] ?? 0) - (y[i] ?? 0);
            if (d !== 0) return d;
        }
        return 0;
    };
    const aboveLow = low === '' || (open === '[' ? compare(version, low) >= 0 : compare(version, low) > 0);
    const belowHigh = high === '' || (close === ']' ? compare(version, high) <= 0 : compare(version, high) < 0);
    return aboveLow && belowHigh;
}

describe('the pinned Durable extension', () => {
    test('DurableHost.csproj references the version bundle-versions.json records for the bundle', () => {
        const pinned = pinnedExtension();
        assert.equal(referencedVersion('Microsoft.Azure.WebJobs.Extensions.DurableTask'), pinned.durableTask);
    });

    test("the recorded bundle is one that host.json's extensionBundle range takes", () => {
        const hostJson = JSON.parse(readFileSync(join(repoRoot, 'host.json'), 'utf8')) as { extensionBundle: { id: string; version: string } };
        assert.equal(hostJson.extensionBundle.id, 'Microsoft.Azure.Functions.ExtensionBundle');
        const { bundle } = pinnedExtension();
        assert.ok(inRange(hostJson.extensionBundle.version, bundle), `bundle ${bundle} is outside ${hostJson.extensionBundle.version}`);
    });

    test('the interval check itself', () => {
        assert.ok(inRange('[4.30.0, 5.0.0)', '4.38.0'));
        assert.ok(inRange('[4.*, 5.0.0)', '4.38.0'));
        assert.ok(!inRange('[4.30.0, 5.0.0)', '5.0.0'));
        assert.ok(!inRange('[4.30.0, 5.0.0)', '4.29.9'));
    });
});

describe("the .NET child's environment", () => {
    test('has no platform variables (CONTAINER_NAME, WEBSITE_*), and keeps the app settings', () => {
        const { env, removed } = childEnvironment({
            CONTAINER_NAME: 'ci-runner',
            WEBSITE_HOSTNAME: 'localhost:7071',
            WEBSITE_SKU: 'Dynamic',
            TASKHUB_NAME: 'hub',
            AzureWebJobsStorage: 'UseDevelopmentStorage=true',
            AzureFunctionsJobHost__extensions__durableTask__storageProvider__workItemQueueVisibilityTimeout: '00:00:15',
            PATH: '/usr/bin',
        });
        assert.deepEqual(removed, ['CONTAINER_NAME', 'WEBSITE_HOSTNAME', 'WEBSITE_SKU']);
        assert.deepEqual(Object.keys(env).sort(), [
            'AzureFunctionsJobHost__extensions__durableTask__storageProvider__workItemQueueVisibilityTimeout',
            'AzureWebJobsStorage',
            'PATH',
            'TASKHUB_NAME',
        ]);
    });
});
