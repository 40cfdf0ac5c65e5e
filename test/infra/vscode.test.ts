/**
 * The .vscode files: they parse, mcp.json has the shape VS Code reads and points at the app's route,
 * and F5 chains func host start -> npm build -> attach on 9229 as the Azure Functions templates do.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { getPathInsensitive, isRecord, readJson, readRepoFile, repoRoot } from './files';

const LOCAL_URL = 'http://localhost:7071/api/mcp';
const REMOTE_URL = 'https://${input:functionapp-host}/api/mcp';

function records(value: unknown, where: string): Record<string, unknown>[] {
    assert.ok(Array.isArray(value), `${where} should be an array`);
    return value.map((item, i) => {
        assert.ok(isRecord(item), `${where}[${i}] should be an object`);
        return item;
    });
}

describe('.vscode', () => {
    it('holds only JSON files that parse', () => {
        const files = readdirSync(join(repoRoot(), '.vscode')).filter((f) => f.endsWith('.json'));
        for (const name of ['mcp.json', 'extensions.json', 'launch.json', 'tasks.json', 'settings.json']) {
            assert.ok(files.includes(name), `.vscode/${name} is missing`);
        }
        for (const file of files) readJson(`.vscode/${file}`);
    });
});

describe('.vscode/mcp.json', () => {
    const mcp = readJson('.vscode/mcp.json');
    const servers = isRecord(mcp) ? mcp['servers'] : undefined;
    const inputs = (): Record<string, unknown>[] => records(isRecord(mcp) ? (mcp['inputs'] ?? []) : undefined, '.vscode/mcp.json inputs');

    it('lists servers as VS Code expects: type http and a url', () => {
        assert.ok(isRecord(servers) && Object.keys(servers).length > 0, '.vscode/mcp.json needs a top-level "servers" object');
        for (const [name, server] of Object.entries(servers)) {
            assert.ok(isRecord(server), `.vscode/mcp.json server ${name} must be an object`);
            assert.equal(server['type'], 'http', `.vscode/mcp.json server ${name}: type must be "http"`);
            assert.equal(typeof server['url'], 'string', `.vscode/mcp.json server ${name}: url must be a string`);
        }
    });

    it('has the local endpoint and the remote one with a function key header', () => {
        assert.ok(isRecord(servers), '.vscode/mcp.json needs a top-level "servers" object');
        const all = Object.values(servers).filter(isRecord);
        assert.ok(all.some((s) => s['url'] === LOCAL_URL), `.vscode/mcp.json needs a server at ${LOCAL_URL}`);
        const remote = all.find((s) => s['url'] === REMOTE_URL);
        assert.ok(remote, `.vscode/mcp.json needs a server at ${REMOTE_URL}`);
        assert.equal(getPathInsensitive(remote, ['headers', 'x-functions-key']), '${input:functions-key}', 'the remote server must send x-functions-key: ${input:functions-key}');
    });

    it('matches the route the app serves (host.json routePrefix + mcp)', () => {
        const prefix = getPathInsensitive(readJson('host.json'), ['extensions', 'http', 'routePrefix']) ?? 'api';
        for (const url of [LOCAL_URL, REMOTE_URL]) {
            assert.ok(url.endsWith(`/${String(prefix)}/mcp`), `${url} does not match host.json routePrefix "${String(prefix)}"`);
        }
    });

    it('declares every ${input:...} it uses, with type, id and description', () => {
        const ids = inputs().map((i) => i['id']);
        assert.equal(new Set(ids).size, ids.length, '.vscode/mcp.json input ids must be unique');
        for (const input of inputs()) {
            for (const key of ['type', 'id', 'description']) {
                assert.equal(typeof input[key], 'string', `.vscode/mcp.json input ${String(input['id'])} needs a string "${key}"`);
            }
            assert.equal(input['type'], 'promptString', `.vscode/mcp.json input ${String(input['id'])} should be a promptString`);
        }
        const used = [...JSON.stringify(servers).matchAll(/\$\{input:([^}]+)\}/g)].map((m) => m[1]);
        const undeclared = used.filter((id) => !ids.includes(id));
        assert.deepEqual(undeclared, [], `.vscode/mcp.json uses undeclared inputs: ${undeclared.join(', ')}`);
    });

    it('hides the function key as a password', () => {
        const key = inputs().find((i) => i['id'] === 'functions-key');
        assert.ok(key, '.vscode/mcp.json needs the functions-key input');
        assert.equal(key['password'], true, 'the functions-key input must have password: true');
    });
});

describe('F5 (launch, tasks, settings)', () => {
    const tasks = (): Record<string, unknown>[] => records(getPathInsensitive(readJson('.vscode/tasks.json'), ['tasks']), '.vscode/tasks.json tasks');
    const labels = (): unknown[] => tasks().map((t) => t['label']);
    const byLabel = (label: unknown): Record<string, unknown> | undefined => tasks().find((t) => t['label'] === label);

    it('starts the Functions host after building with npm', () => {
        const host = byLabel('func: host start');
        assert.ok(host, '.vscode/tasks.json needs the "func: host start" task');
        assert.equal(host['type'], 'func', '"func: host start" must be a func task');
        assert.equal(host['command'], 'host start', '"func: host start" must run host start');
        assert.equal(host['isBackground'], true, '"func: host start" must be a background task');
        const build = byLabel(host['dependsOn']);
        assert.ok(build, `"func: host start" depends on "${String(host['dependsOn'])}", which is not a task`);
        assert.equal(build['command'], 'npm run build', `"${String(host['dependsOn'])}" should run npm run build`);
        const pkg = readJson('package.json');
        assert.ok(getPathInsensitive(pkg, ['scripts', 'build']), 'package.json has no build script for the npm build task');
    });

    it('has every dependsOn name an existing task', () => {
        for (const task of tasks()) {
            const deps = ([] as unknown[]).concat(task['dependsOn'] ?? []);
            for (const dep of deps) assert.ok(labels().includes(dep), `task "${String(task['label'])}" depends on unknown task "${String(dep)}"`);
        }
    });

    it('attaches the debugger to Node on 9229 after starting the host', () => {
        const configs = records(getPathInsensitive(readJson('.vscode/launch.json'), ['configurations']), '.vscode/launch.json configurations');
        const attach = configs.find((c) => c['type'] === 'node' && c['request'] === 'attach');
        assert.ok(attach, '.vscode/launch.json needs a node attach configuration');
        assert.equal(attach['port'], 9229, '.vscode/launch.json must attach on port 9229, where the Functions extension starts the Node worker\'s inspector');
        assert.equal(attach['preLaunchTask'], 'func: host start', '.vscode/launch.json must start "func: host start" before attaching');
    });

    it('runs the local host under the debugger without Core Tools, after the npm build', () => {
        const configs = records(getPathInsensitive(readJson('.vscode/launch.json'), ['configurations']), '.vscode/launch.json configurations');
        const local = configs.find((c) => c['type'] === 'node' && c['request'] === 'launch');
        assert.ok(local, '.vscode/launch.json needs a node launch configuration for the local host');
        assert.equal(local['program'], '${workspaceFolder}/devhost/dist/cli.js', 'it must run the local host as npm start does');
        const build = byLabel(local['preLaunchTask']);
        assert.equal(build?.['command'], 'npm run build', 'it must build first, as npm start does');
    });

    it('sets the Azure Functions project settings', () => {
        const settings = readJson('.vscode/settings.json');
        assert.ok(isRecord(settings), '.vscode/settings.json must be an object');
        const expected: Record<string, string> = {
            'azureFunctions.projectLanguage': 'TypeScript',
            'azureFunctions.projectRuntime': '~4',
        };
        for (const [key, value] of Object.entries(expected)) {
            assert.equal(settings[key], value, `.vscode/settings.json ${key} must be "${value}"`);
        }
    });

    it('deploys from VS Code the package azd deploys, staged right before', async () => {
        const settings = readJson('.vscode/settings.json');
        assert.ok(isRecord(settings), '.vscode/settings.json must be an object');
        const url = pathToFileURL(join(repoRoot(), 'infra/hooks/stage-package.mjs')).href;
        const { DEPLOY_DIR } = (await import(url)) as { DEPLOY_DIR: string };
        assert.equal(settings['azureFunctions.deploySubpath'], DEPLOY_DIR, `.vscode/settings.json azureFunctions.deploySubpath must be ${DEPLOY_DIR}: "." would ship the checked-in host.json, which names Azure Storage, and the dev tools`);
        const pre = byLabel(settings['azureFunctions.preDeployTask']);
        assert.ok(pre, `.vscode/settings.json azureFunctions.preDeployTask names "${String(settings['azureFunctions.preDeployTask'])}", which is not a task`);
        assert.equal(pre['command'], 'node infra/hooks/stage-package.mjs', 'the pre-deploy task must stage the package (node infra/hooks/stage-package.mjs)');
        const post = settings['azureFunctions.postDeployTask'];
        assert.ok(post === undefined || labels().includes(post), `.vscode/settings.json azureFunctions.postDeployTask names "${String(post)}", which is not a task`);
        for (const task of tasks()) {
            assert.doesNotMatch(String(task['command']), /npm prune/, `task "${String(task['label'])}" prunes the dev tools from the working tree; stage the package instead`);
        }
    });

    it('lets the Azurite extension serve the current Durable extension, with its data in .azurite', () => {
        const settings = readJson('.vscode/settings.json');
        assert.ok(isRecord(settings), '.vscode/settings.json must be an object');
        assert.equal(settings['azurite.skipApiVersionCheck'], true, '.vscode/settings.json must set azurite.skipApiVersionCheck: true, or Azurite refuses the storage API version the Durable extension uses');
        assert.equal(settings['azurite.location'], '.azurite', '.vscode/settings.json azurite.location must be .azurite (git-ignored, left out of deployments)');
        assert.ok(readRepoFile('.gitignore').split(/\r?\n/).includes('.azurite/'), '.gitignore should list .azurite/');
        assert.ok(readRepoFile('.funcignore').split(/\r?\n/).includes('.azurite/'), '.funcignore should list .azurite/');
        const cli = byLabel('azurite: start');
        assert.match(String(cli?.['command']), /--skipApiVersionCheck\b.*--location \.azurite\b/, 'the "azurite: start" task must pass --skipApiVersionCheck and --location .azurite');
    });
});
