/**
 * The app settings the Bicep gives the function app, held to what the code reads (src/config.ts),
 * to host.json and to the README.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, readFunctionTimeoutSeconds, SETTING_NAMES } from '../../src/config';
import {
    deploySection,
    entry,
    getPathInsensitive,
    loadDeployment,
    moduleFile,
    objectEntries,
    readJson,
    readRepoFile,
    repoRoot,
    resolve,
    statement,
    stringLiteral,
} from './bicep';

const deployment = loadDeployment();
const appFile = moduleFile(deployment, 'app/function-app.bicep');
const where = `${appFile.path} var appSettings`;
const settings = objectEntries(statement(appFile, 'var', 'appSettings').value, where);
const settingNames = settings.map((s) => s.key);
const valueOf = (name: string): string | undefined => settings.find((s) => s.key === name)?.value;

/**
 * Settings the app code does not read but the platform, the Functions host or an extension does.
 * A name (or a prefix ending in `__`) with the reason it is there.
 */
const PLATFORM_SETTINGS: ReadonlyMap<string, string> = new Map([
    ['AzureWebJobsStorage__', 'identity-based host storage connection (credential, clientId, service URIs) read by the Functions host'],
    ['APPLICATIONINSIGHTS_CONNECTION_STRING', 'where the host and worker send telemetry'],
    ['APPLICATIONINSIGHTS_AUTHENTICATION_STRING', 'Entra (managed identity) auth for telemetry, needed with local auth disabled'],
    ['AzureFunctionsJobHost__', 'app-setting overrides of host.json values, applied by the Functions host'],
    ['DURABLE_TASK_SCHEDULER_CONNECTION_STRING', 'the scheduler connection, named by the storageProvider connectionStringName override'],
]);

/** Settings Flex Consumption rejects or ignores: their job moved into functionAppConfig. */
const NOT_ON_FLEX = [
    'FUNCTIONS_WORKER_RUNTIME',
    'FUNCTIONS_EXTENSION_VERSION',
    'WEBSITE_RUN_FROM_PACKAGE',
    'WEBSITE_CONTENTSHARE',
    'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
    'SCM_DO_BUILD_DURING_DEPLOYMENT',
    'ENABLE_ORYX_BUILD',
    'WEBSITE_NODE_DEFAULT_VERSION',
    'AzureWebJobsStorage', // a key-based connection string: the account has shared keys off
];

function platformReason(name: string): string | undefined {
    for (const [pattern, reason] of PLATFORM_SETTINGS) {
        if (pattern.endsWith('__') ? name.startsWith(pattern) : name === pattern) return reason;
    }
    return undefined;
}

const OVERRIDE_PREFIX = 'AzureFunctionsJobHost__';
const PROVIDER_PREFIX = `${OVERRIDE_PREFIX}extensions__durableTask__storageProvider__`;

describe('function app settings', () => {
    it('set every setting the app reads', () => {
        const missing = SETTING_NAMES.filter((name) => !settingNames.includes(name));
        assert.deepEqual(missing, [], `${where} lacks ${missing.join(', ')}, which src/config.ts reads (SETTING_NAMES)`);
    });

    it('set nothing that is neither read by the app, a known platform setting, nor documented in the README', () => {
        const readme = deploySection();
        const unexplained = settingNames.filter(
            (name) => !(SETTING_NAMES as readonly string[]).includes(name) && platformReason(name) === undefined && !readme.includes(name)
        );
        assert.deepEqual(unexplained, [], `${where} sets ${unexplained.join(', ')}: add it to SETTING_NAMES, to PLATFORM_SETTINGS in this test with a reason, or document it in the README's Deploy to Azure section`);
    });

    it('avoid settings that Flex Consumption does not allow', () => {
        const banned = settingNames.filter((name) => NOT_ON_FLEX.includes(name));
        assert.deepEqual(banned, [], `${where} sets ${banned.join(', ')}, which Flex Consumption does not allow or the storage account refuses`);
    });

    it('switch the durable backend to the scheduler by overriding host.json', () => {
        assert.equal(stringLiteral(valueOf(`${PROVIDER_PREFIX}type`)), 'azureManaged', `${where}: ${PROVIDER_PREFIX}type must be 'azureManaged'`);
        const named = resolve(deployment, appFile, valueOf(`${PROVIDER_PREFIX}connectionStringName`) ?? '');
        assert.equal(typeof named, 'string', `${where}: ${PROVIDER_PREFIX}connectionStringName must be a plain string`);
        assert.ok(settingNames.includes(String(named)), `${where}: connectionStringName names ${String(named)}, which the Bicep does not set`);
    });

    it('override only host.json sections that exist', () => {
        const hostJson = readJson('host.json');
        for (const name of settingNames.filter((n) => n.startsWith(OVERRIDE_PREFIX))) {
            const path = name.slice(OVERRIDE_PREFIX.length).split('__');
            const parent = getPathInsensitive(hostJson, path.slice(0, -1));
            assert.ok(parent !== undefined, `${where}: ${name} overrides ${path.join('.')}, but host.json has no ${path.slice(0, -1).join('.')}: a typo?`);
        }
    });

    it('connect to the scheduler and to storage with the same user-assigned identity', () => {
        const clientId = valueOf('AzureWebJobsStorage__clientId');
        assert.equal(valueOf('AzureWebJobsStorage__credential'), "'managedidentity'", `${where}: AzureWebJobsStorage__credential must be 'managedidentity'`);
        for (const service of ['blob', 'queue', 'table']) {
            assert.ok(valueOf(`AzureWebJobsStorage__${service}ServiceUri`), `${where} lacks AzureWebJobsStorage__${service}ServiceUri (the host uses ${service} storage)`);
        }
        assert.ok(clientId && /^\w+$/.test(clientId), `${where}: AzureWebJobsStorage__clientId should be the identity's client id parameter`);
        assert.equal(
            valueOf('DURABLE_TASK_SCHEDULER_CONNECTION_STRING'),
            `'Endpoint=\${schedulerEndpoint};Authentication=ManagedIdentity;ClientID=\${${clientId}}'`,
            `${where}: DURABLE_TASK_SCHEDULER_CONNECTION_STRING must be Endpoint=<scheduler endpoint>;Authentication=ManagedIdentity;ClientID=<the same client id>`
        );
        assert.equal(
            valueOf('APPLICATIONINSIGHTS_AUTHENTICATION_STRING'),
            `'ClientId=\${${clientId}};Authorization=AAD'`,
            `${where}: APPLICATIONINSIGHTS_AUTHENTICATION_STRING must be ClientId=<the same client id>;Authorization=AAD`
        );
    });

    it('give values the app accepts, within host.json functionTimeout', () => {
        const env: NodeJS.ProcessEnv = {};
        for (const name of SETTING_NAMES) {
            const value = resolve(deployment, appFile, valueOf(name) ?? '');
            assert.notEqual(value, undefined, `${where}: cannot tell the deployed value of ${name}; keep it a literal or a parameter with a default`);
            env[name] = String(value);
        }
        try {
            parseConfig(env, readFunctionTimeoutSeconds(repoRoot(), {}));
        } catch (error) {
            assert.fail(`${where} would stop the app at start: ${(error as Error).message}`);
        }
    });

    it('default DEFAULT_DIFFICULTY to the app\'s own default', () => {
        const appDefault = parseConfig({ TASKHUB_NAME: 'probe' }).defaultDifficulty;
        const bicepDefault = resolve(deployment, deployment.main, statement(deployment.main, 'param', 'defaultDifficulty').value);
        assert.equal(bicepDefault, appDefault, `infra/main.bicep param defaultDifficulty defaults to ${String(bicepDefault)}, src/config.ts to ${appDefault}: make them agree`);
    });

    it('are declared once and stay out of siteConfig, where a second list would replace them', () => {
        const duplicates = settingNames.filter((name, i) => settingNames.indexOf(name) !== i);
        assert.deepEqual(duplicates, [], `${where} sets ${duplicates.join(', ')} twice`);
        const site = appFile.statements.find((s) => s.keyword === 'resource' && s.type.startsWith('Microsoft.Web/sites@'));
        assert.ok(site, `${appFile.path} has no Microsoft.Web/sites resource`);
        const siteConfig = entry(entry(site.value, 'properties', appFile.path) ?? '{}', 'siteConfig', appFile.path);
        assert.ok(siteConfig === undefined || !/appSettings/i.test(siteConfig), `${appFile.path}: set app settings only in var appSettings (the config/appsettings resource)`);
        assert.ok(/\bproperties:\s*appSettings\b/.test(appFile.code), `${appFile.path}: the appsettings config resource must use var appSettings`);
    });

    it('keep the README free of key-based storage instructions', () => {
        // Shared keys are off; a README telling people to paste a storage connection string would fail for them.
        assert.doesNotMatch(readRepoFile('README.md'), /AccountKey=/, 'README.md mentions AccountKey=, but the storage account refuses keys');
    });
});
