/**
 * azure.yaml, the prepackage hook and .funcignore agree, so `azd up` deploys the compiled app with
 * production dependencies only, to the function app the Bicep tags for it.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
    deploySection,
    entry,
    getPathInsensitive,
    loadDeployment,
    moduleFile,
    parseSimpleYaml,
    readJson,
    readRepoFile,
    repoRoot,
    resolve,
    statement,
    type YamlMap,
} from './bicep';

/** What the hook module (infra/hooks/stage-package.mjs) exports; it is plain JS, so this is its shape. */
interface StageModule {
    DEPLOY_DIR: string;
    PROVIDER_SWITCH: string;
    SCHEDULER_PROVIDER: { type: string; connectionStringName: string };
    hostJsonForDeploy(hostJson: unknown, provider: string | undefined): unknown;
}

const HOOK = 'infra/hooks/stage-package.mjs';

async function loadHook(): Promise<StageModule> {
    // A computed specifier keeps tsc from resolving the .mjs; Node loads it as an ES module.
    const url = pathToFileURL(join(repoRoot(), HOOK)).href;
    return (await import(url)) as StageModule;
}

const azureYaml = parseSimpleYaml(readRepoFile('azure.yaml'), 'azure.yaml');
const services = azureYaml['services'];

function service(): [string, YamlMap] {
    assert.ok(typeof services === 'object', 'azure.yaml has no services');
    const names = Object.keys(services);
    assert.equal(names.length, 1, `azure.yaml should define one service, found ${names.join(', ')}`);
    const [name = ''] = names;
    const config = services[name];
    assert.ok(typeof config === 'object', `azure.yaml service ${name} has no settings`);
    return [name, config];
}

describe('azure.yaml', () => {
    it('deploys service `api`, tagged on the function app with the same name', () => {
        const [name, config] = service();
        assert.equal(config['host'], 'function', `azure.yaml service ${name}: host must be function`);
        assert.equal(config['language'], 'ts', `azure.yaml service ${name}: language must be ts`);
        const deployment = loadDeployment();
        const appFile = moduleFile(deployment, 'app/function-app.bicep');
        const site = appFile.statements.find((s) => s.keyword === 'resource' && s.type.startsWith('Microsoft.Web/sites@'));
        assert.ok(site, `${appFile.path} has no Microsoft.Web/sites resource`);
        const tags = entry(site.value, 'tags', appFile.path) ?? '';
        const tagExpr = /'azd-service-name':\s*(\w+|'[^']*')/.exec(tags)?.[1];
        assert.ok(tagExpr, `${appFile.path}: the function app has no 'azd-service-name' tag`);
        assert.equal(resolve(deployment, appFile, tagExpr), name, `${appFile.path}: the azd-service-name tag must equal the azure.yaml service name "${name}"`);
    });

    it('builds locally and deploys the folder the prepackage hook stages', async () => {
        const [name, config] = service();
        const hook = await loadHook();
        assert.equal(config['remoteBuild'], 'false', `azure.yaml service ${name}: remoteBuild must be false (the package is built and checked locally)`);
        assert.equal(config['dist'], hook.DEPLOY_DIR, `azure.yaml service ${name}: dist must be ${hook.DEPLOY_DIR}, where ${HOOK} stages the package`);
        const hooks = config['hooks'];
        const prepackage = typeof hooks === 'object' ? hooks['prepackage'] : undefined;
        assert.ok(typeof prepackage === 'object', `azure.yaml service ${name} has no prepackage hook`);
        for (const platform of ['posix', 'windows']) {
            const run = getPathInsensitive(prepackage, [platform, 'run']);
            assert.equal(run, `node ${HOOK}`, `azure.yaml prepackage.${platform}.run must be "node ${HOOK}"`);
        }
        assert.ok(existsSync(join(repoRoot(), HOOK)), `${HOOK} is missing`);
    });
});

describe('.funcignore', () => {
    const lines = readRepoFile('.funcignore')
        .split(/\r?\n/)
        .map((l) => l.trim());

    it('keeps node_modules, which azd refuses to combine with remoteBuild: false otherwise', () => {
        const excluded = lines.filter((l) => /^\/?node_modules\/?$/.test(l));
        assert.deepEqual(excluded, [], '.funcignore excludes node_modules entirely; azd then rejects remoteBuild: false');
    });

    it('leaves the staged azd package out of other deploy paths', async () => {
        const { DEPLOY_DIR } = await loadHook();
        assert.ok(lines.includes(`${DEPLOY_DIR}/`), `.funcignore should list ${DEPLOY_DIR}/ so func/VS Code deploys do not ship a second copy`);
    });
});

describe('deployed host.json', () => {
    it('names the scheduler by default, and is the checked-in host.json with azureStorage', async () => {
        const hook = await loadHook();
        const hostJson = readJson('host.json');
        for (const unset of [undefined, '']) {
            const deployed = hook.hostJsonForDeploy(hostJson, unset);
            assert.deepEqual(
                getPathInsensitive(deployed, ['extensions', 'durableTask', 'storageProvider']),
                { ...hook.SCHEDULER_PROVIDER },
                `${HOOK} must deploy the scheduler provider when ${hook.PROVIDER_SWITCH} is ${JSON.stringify(unset)}`
            );
        }
        assert.deepEqual(hook.hostJsonForDeploy(hostJson, 'azureStorage'), hostJson, `${HOOK} changed host.json although ${hook.PROVIDER_SWITCH} is azureStorage`);
    });

    it('names the scheduler exactly as the override app settings do', async () => {
        const hook = await loadHook();
        const deployment = loadDeployment();
        const appFile = moduleFile(deployment, 'app/function-app.bicep');
        const settings = statement(appFile, 'var', 'appSettings').value;
        const override = (key: string): unknown => {
            const expr = new RegExp(`^\\s*AzureFunctionsJobHost__extensions__durableTask__storageProvider__${key}:\\s*(.+)$`, 'm').exec(settings)?.[1];
            return expr === undefined ? undefined : resolve(deployment, appFile, expr);
        };
        assert.equal(hook.SCHEDULER_PROVIDER.type, override('type'), `${HOOK} and ${appFile.path} disagree on the provider type`);
        assert.equal(hook.SCHEDULER_PROVIDER.connectionStringName, override('connectionStringName'), `${HOOK} and ${appFile.path} disagree on connectionStringName`);

        const deployed = hook.hostJsonForDeploy(readJson('host.json'), hook.SCHEDULER_PROVIDER.type);
        assert.deepEqual(getPathInsensitive(deployed, ['extensions', 'durableTask', 'storageProvider']), { ...hook.SCHEDULER_PROVIDER }, `${HOOK} must write exactly the scheduler provider into the deployed host.json`);
        assert.equal(getPathInsensitive(deployed, ['extensions', 'durableTask', 'hubName']), '%TASKHUB_NAME%', `${HOOK} must keep hubName when it switches the provider`);
    });

    it('rejects an unknown switch value instead of deploying the wrong backend', async () => {
        const hook = await loadHook();
        assert.throws(() => hook.hostJsonForDeploy(readJson('host.json'), 'dts'), new RegExp(hook.PROVIDER_SWITCH));
    });

    it('has its switch documented in the README', async () => {
        const { PROVIDER_SWITCH } = await loadHook();
        assert.ok(deploySection().includes(PROVIDER_SWITCH), `README "Deploy to Azure" should explain ${PROVIDER_SWITCH}`);
    });
});
