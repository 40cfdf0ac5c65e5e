import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { isListening, startAzurite } from '../azurite';
import { applyLocalSettings, readHostSettings, SettingsError } from '../settings';
import { fixtureApp, onFreeAzuritePorts, repoRoot, spawnHost, startOwnAzurite, uniqueHubName } from '@mcp-mining/testkit';

function tempApp(files: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), 'devhost-settings-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(content));
    return dir;
}

/** A fixture app in a temporary folder: its host.json, and an entry point that loads its compiled functions. */
function appCopy(name: string): string {
    const dir = mkdtempSync(join(tmpdir(), `devhost-${name}-`));
    copyFileSync(join(fixtureApp(name), 'host.json'), join(dir, 'host.json'));
    const functions = join(repoRoot, 'testkit', 'dist', 'fixtures', name, 'functions');
    const requires = readdirSync(functions)
        .filter((file) => file.endsWith('.js'))
        .map((file) => `require(${JSON.stringify(join(functions, file))});`);
    writeFileSync(join(dir, 'index.js'), requires.join('\n'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, main: 'index.js' }));
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
            functionTimeout: { text: '00:10:00', ms: 600_000 },
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
        const { ports, azurite: first } = await startOwnAzurite({ location });
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
    test('with UseDevelopmentStorage=true it starts Azurite, serves, and stops everything on SIGTERM (Ctrl-C takes the same path)', async () => {
        // The fixture app from a folder of its own, so that Azurite's data (.azurite next to the app, where
        // npm start keeps it) lands in a temporary folder; Azurite on free ports, and a task hub of its own.
        const app = appCopy('durable-app');
        const data = join(app, '.azurite');
        const { ports: picked, value: host } = await onFreeAzuritePorts((ports) =>
            spawnHost({
                app,
                storage: 'azure',
                azurite: true,
                args: ['--azurite-ports', [ports.blob, ports.queue, ports.table].join(',')],
                env: { AzureWebJobsStorage: 'UseDevelopmentStorage=true', TASKHUB_NAME: uniqueHubName('startup') },
            }),
        );
        const ports = [picked.blob, picked.queue, picked.table];
        try {
            assert.ok(host.stderr.includes(`Started Azurite (data in ${data})`), host.stderr);
            for (const port of ports) assert.ok(await isListening('127.0.0.1', port), `Azurite listens on ${port}`);
            const res = await fetch(`${host.url}/runtime/webhooks/durabletask/orchestrators/Chain?timeout=20&pollingInterval=1`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '["npm start"]',
            });
            assert.deepEqual(await res.json(), ['Hello npm start!']);
            assert.ok(existsSync(join(data, '__azurite_db_table__.json')), 'Durable state written to the data folder');
        } finally {
            await host.stop();
        }
        for (const port of ports) assert.equal(await isListening('127.0.0.1', port), false, `Azurite stopped with the host (port ${port})`);
        rmSync(app, { recursive: true, force: true });
    });

    test('--azurite-ports must name three ports', async () => {
        const app = appCopy('durable-app');
        try {
            await assert.rejects(
                spawnHost({ app, storage: 'azure', azurite: true, args: ['--azurite-ports', '1,2'], env: { AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }),
                /--azurite-ports must be three port numbers/
            );
        } finally {
            rmSync(app, { recursive: true, force: true });
        }
    });

    test('the banner gives the MCP URL and a .vscode/mcp.json entry; a bad setting stops the app with its name', async () => {
        const host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('banner') } });
        try {
            // Printed as README.md and .vscode/mcp.json name it (localhost), while the host listens on 127.0.0.1.
            const port = new URL(host.url).port;
            assert.match(host.url, /^http:\/\/127\.0\.0\.1:\d+$/);
            assert.match(host.stdout, new RegExp(`MCP endpoint: http://localhost:${port}/api/mcp\n`));
            assert.match(host.stdout, new RegExp(`"servers": \\{\\s+"miningLocal": \\{\\s+"type": "http",\\s+"url": "http://localhost:${port}/api/mcp"`));
            assert.match(host.stdout, new RegExp(`Host ready on http://localhost:${port} \\(listening on http://127\\.0\\.0\\.1:${port}; Ctrl-C to stop\\)`));
            assert.doesNotMatch(host.stdout.slice(0, host.stdout.indexOf('Host ready')), /127\.0\.0\.1/, 'the banner names localhost only');
            // The printed URL answers, through the Origin/Host rule, as a client that follows it would call it.
            const answer = await fetch(`http://localhost:${port}/api/mcp`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Origin: `http://localhost:${port}` },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'banner', version: '1' } } }),
            });
            assert.equal(answer.status, 200, await answer.text());
        } finally {
            await host.stop();
        }
        await assert.rejects(
            spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('banner'), MAX_BLOCKS: 'many' } }),
            /MAX_BLOCKS must be a number/
        );
    });
});
