import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_PORTS, freePort, isListening, startAzurite } from '../../devhost/azurite';
import { applyLocalSettings, readHostSettings, SettingsError } from '../../devhost/settings';
import { fixtureApp, repoRoot, spawnHost } from '../support/spawnHost';

function tempApp(files: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), 'devhost-settings-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(content));
    return dir;
}

describe('settings, as func start reads them', () => {
    test('local.settings.json Values fill the environment, and a variable already set wins', () => {
        const dir = tempApp({ 'local.settings.json': { IsEncrypted: false, Values: { A: 'from file', B: 'from file', N: 5 } } });
        const env: NodeJS.ProcessEnv = { B: 'from environment' };
        const result = applyLocalSettings(dir, env);
        assert.deepEqual(env, { A: 'from file', B: 'from environment', N: '5' });
        assert.deepEqual(result, { applied: ['A', 'N'], overridden: ['B'] });
        rmSync(dir, { recursive: true });
    });

    test('host.json: routePrefix, hubName with %SETTING%, and AzureFunctionsJobHost__ overrides', () => {
        const dir = tempApp({
            'host.json': {
                functionTimeout: '00:10:00',
                extensions: { http: { routePrefix: '/x/' }, durableTask: { hubName: '%HUB%' } },
            },
        });
        assert.deepEqual(readHostSettings(dir, { HUB: 'myhub' }), {
            routePrefix: 'x',
            hubName: 'myhub',
            durableConnectionName: 'AzureWebJobsStorage',
            durableProviderType: undefined,
        });
        const overridden = readHostSettings(dir, {
            HUB: 'myhub',
            AzureFunctionsJobHost__extensions__http__routePrefix: '',
            AzureFunctionsJobHost__extensions__durableTask__hubName: 'otherhub',
        });
        assert.equal(overridden.routePrefix, '');
        assert.equal(overridden.hubName, 'otherhub');
        assert.throws(() => readHostSettings(dir, {}), (err: Error) => err instanceof SettingsError && /%HUB%.*HUB is not set/.test(err.message));
        assert.throws(() => readHostSettings(dir, { HUB: 'no-dashes' }), /hubName "no-dashes" is invalid/);
        rmSync(dir, { recursive: true });
    });

    test('a missing host.json means the defaults', () => {
        const dir = tempApp({});
        const settings = readHostSettings(dir, {});
        assert.equal(settings.routePrefix, 'api');
        assert.equal(settings.hubName, 'TestHubName');
        rmSync(dir, { recursive: true });
    });
});

describe('Azurite from node_modules', () => {
    test('starts with its data in the given folder, and a second start reuses the running one', async () => {
        const location = mkdtempSync(join(tmpdir(), 'azurite-start-'));
        const ports = { blob: await freePort(), queue: await freePort(), table: await freePort() };
        const first = await startAzurite({ location, ports });
        try {
            assert.equal(first.started, true);
            for (const port of Object.values(ports)) assert.ok(await isListening('127.0.0.1', port), `port ${port}`);
            assert.match(first.connectionString, new RegExp(`TableEndpoint=http://127.0.0.1:${ports.table}/devstoreaccount1`));
            const second = await startAzurite({ location, ports });
            assert.equal(second.started, false);
            await second.stop(); // stopping a reused Azurite leaves it running
            assert.ok(await isListening('127.0.0.1', ports.table));
        } finally {
            await first.stop();
        }
        assert.equal(await isListening('127.0.0.1', ports.table), false);
        assert.ok(existsSync(join(location, '__azurite_db_table__.json')), 'table data written to the folder');
        rmSync(location, { recursive: true, force: true });
    });
});

describe('the command line, as npm start runs it', () => {
    test('with UseDevelopmentStorage=true it starts Azurite, serves, and stops everything on SIGTERM (Ctrl-C takes the same path)', async (t) => {
        const busy = await Promise.all(Object.values(DEFAULT_PORTS).map((port) => isListening('127.0.0.1', port)));
        if (busy.some(Boolean)) return t.skip('an Azurite (or something else) already uses ports 10000-10002');
        const app = fixtureApp('durable-app');
        const data = join(app, '.azurite');
        const host = await spawnHost({
            app,
            storage: 'azure',
            azurite: true,
            env: { AzureWebJobsStorage: 'UseDevelopmentStorage=true', TASKHUB_NAME: 'startuptest' },
        });
        try {
            assert.match(host.stderr, /Started Azurite \(data in .*\.azurite\)/);
            const res = await fetch(`${host.url}/runtime/webhooks/durabletask/orchestrators/Chain?timeout=20&pollingInterval=1`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '["npm start"]',
            });
            assert.deepEqual(await res.json(), ['Hello npm start!']);
            assert.ok(existsSync(data));
        } finally {
            await host.stop();
            rmSync(data, { recursive: true, force: true });
        }
        assert.equal(await isListening('127.0.0.1', DEFAULT_PORTS.table), false, 'Azurite stopped with the host');
    });

    test('the banner gives the MCP URL and a .vscode/mcp.json entry; a bad setting stops the app with its name', async () => {
        const host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: 'bannertest' } });
        try {
            assert.match(host.stdout, new RegExp(`MCP endpoint: ${host.url}/api/mcp`));
            assert.match(host.stdout, /"servers": \{\s+"miningLocal": \{\s+"type": "http",\s+"url": "http:\/\/127\.0\.0\.1:\d+\/api\/mcp"/);
        } finally {
            await host.stop();
        }
        await assert.rejects(
            spawnHost({ app: repoRoot, env: { TASKHUB_NAME: 'bannertest', MAX_BLOCKS: 'many' } }),
            /MAX_BLOCKS must be a number/
        );
    });
});
