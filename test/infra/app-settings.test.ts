/**
 * The app settings the compiled template gives the function app, held to what the code reads
 * (src/config.ts), to host.json and to the deployment guide (docs/deployment.md).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, readFunctionTimeoutSeconds, SETTING_NAMES } from '../../src/config';
import { at, deployed, referenceOf, Runtime, type ValueObject } from '@mcp-mining/testkit/arm';
import { deploySection, docFiles, getPathInsensitive, readJson, readRepoFile, repoRoot } from './files';
import { appSettingsOf, bicepSkip, deployment, only, template } from './template';

const WHERE = 'infra/app/function-app.bicep appsettings (compiled)';

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
    ['WEBSITE_AUTH_PRM_DEFAULT_WITH_SCOPES', 'App Service Authentication serves the MCP protected resource metadata (RFC 9728) for this scope'],
    ['WEBSITE_AUTH_AAD_ALLOWED_TENANTS', 'App Service Authentication accepts Entra tokens of these tenants only'],
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

describe('function app settings', { skip: bicepSkip }, () => {
    const settings = (): ValueObject => appSettingsOf();
    const names = (): string[] => Object.keys(settings());

    it('set every setting the app reads', () => {
        const missing = SETTING_NAMES.filter((name) => !names().includes(name));
        assert.deepEqual(missing, [], `${WHERE} lacks ${missing.join(', ')}, which src/config.ts reads (SETTING_NAMES)`);
    });

    it('set nothing that is neither read by the app, a known platform setting, nor documented in the deployment guide', () => {
        const guide = deploySection();
        const unexplained = names().filter(
            (name) => !(SETTING_NAMES as readonly string[]).includes(name) && platformReason(name) === undefined && !guide.includes(name)
        );
        assert.deepEqual(unexplained, [], `${WHERE} sets ${unexplained.join(', ')}: add it to SETTING_NAMES, to PLATFORM_SETTINGS in this test with a reason, or document it in docs/deployment.md`);
    });

    it('avoid settings that Flex Consumption does not allow', () => {
        const banned = names().filter((name) => NOT_ON_FLEX.some((n) => n.toLowerCase() === name.toLowerCase()));
        assert.deepEqual(banned, [], `${WHERE} sets ${banned.join(', ')}, which Flex Consumption does not allow or the storage account refuses`);
    });

    it('are names Azure treats as distinct (app setting names are case-insensitive)', () => {
        const lower = names().map((n) => n.toLowerCase());
        const duplicates = names().filter((_n, i) => lower.indexOf(lower[i] ?? '') !== i);
        assert.deepEqual(duplicates, [], `${WHERE} sets ${duplicates.join(', ')} twice, differing only in case`);
    });

    it('switch the durable backend to the scheduler by overriding host.json', () => {
        assert.equal(settings()[`${PROVIDER_PREFIX}type`], 'azureManaged', `${WHERE}: ${PROVIDER_PREFIX}type must be 'azureManaged'`);
        const named = settings()[`${PROVIDER_PREFIX}connectionStringName`];
        assert.equal(typeof named, 'string', `${WHERE}: ${PROVIDER_PREFIX}connectionStringName must be a plain string`);
        assert.ok(names().includes(String(named)), `${WHERE}: connectionStringName names ${String(named)}, which the template does not set`);
    });

    it('override only host.json sections that exist', () => {
        const hostJson = readJson('host.json');
        for (const name of names().filter((n) => n.startsWith(OVERRIDE_PREFIX))) {
            const path = name.slice(OVERRIDE_PREFIX.length).split('__');
            const parent = getPathInsensitive(hostJson, path.slice(0, -1));
            assert.ok(parent !== undefined, `${WHERE}: ${name} overrides ${path.join('.')}, but host.json has no ${path.slice(0, -1).join('.')}: a typo?`);
        }
    });

    it('connect to storage, telemetry and the scheduler with the one user-assigned identity', () => {
        const root = deployment();
        const identity = only(deployed(root, 'Microsoft.ManagedIdentity/userAssignedIdentities'), 'user-assigned identity');
        const account = only(deployed(root, 'Microsoft.Storage/storageAccounts'), 'storage account');
        const scheduler = only(deployed(root, 'Microsoft.DurableTask/schedulers'), 'scheduler');
        const clientId = new Runtime(`${referenceOf(identity).text}.clientId`);
        const endpoint = new Runtime(`${referenceOf(scheduler).text}.endpoint`);
        const s = settings();

        assert.equal(s['AzureWebJobsStorage__credential'], 'managedidentity', `${WHERE}: AzureWebJobsStorage__credential must be 'managedidentity'`);
        assert.deepEqual(s['AzureWebJobsStorage__clientId'], clientId, `${WHERE}: AzureWebJobsStorage__clientId must be the client id of ${String(identity.name)}`);
        for (const service of ['blob', 'queue', 'table']) {
            assert.deepEqual(
                s[`AzureWebJobsStorage__${service}ServiceUri`],
                new Runtime(`${referenceOf(account).text}.primaryEndpoints.${service}`),
                `${WHERE}: AzureWebJobsStorage__${service}ServiceUri must be the ${service} endpoint of ${String(account.name)} (the host uses ${service} storage)`
            );
        }
        assert.equal(
            s['DURABLE_TASK_SCHEDULER_CONNECTION_STRING'],
            `Endpoint=${String(endpoint)};Authentication=ManagedIdentity;ClientID=${String(clientId)}`,
            `${WHERE}: DURABLE_TASK_SCHEDULER_CONNECTION_STRING must be Endpoint=<the scheduler's endpoint>;Authentication=ManagedIdentity;ClientID=<the identity's client id>`
        );
        assert.equal(
            s['APPLICATIONINSIGHTS_AUTHENTICATION_STRING'],
            `ClientId=${String(clientId)};Authorization=AAD`,
            `${WHERE}: APPLICATIONINSIGHTS_AUTHENTICATION_STRING must be ClientId=<the identity's client id>;Authorization=AAD`
        );
    });

    it('give values the app accepts, within host.json functionTimeout', () => {
        const env: NodeJS.ProcessEnv = {};
        for (const name of SETTING_NAMES) {
            const value = settings()[name];
            assert.equal(typeof value, 'string', `${WHERE}: ${name} is ${value instanceof Runtime ? `only known in Azure (${value.text})` : JSON.stringify(value)}; app settings the app reads must be strings known at deployment`);
            env[name] = String(value);
        }
        try {
            parseConfig(env, readFunctionTimeoutSeconds(repoRoot(), {}));
        } catch (error) {
            assert.fail(`${WHERE} would stop the app at start: ${(error as Error).message}`);
        }
    });

    it('default DEFAULT_DIFFICULTY to the app\'s own default, and pass on the azd value', () => {
        const appDefault = parseConfig({ TASKHUB_NAME: 'probe' }).defaultDifficulty;
        const declared = template().parameters?.['defaultDifficulty'];
        assert.equal(declared?.['defaultValue'], appDefault, `infra/main.bicep param defaultDifficulty defaults to ${String(declared?.['defaultValue'])}, src/config.ts to ${appDefault}: make them agree`);
        assert.equal(settings()['DEFAULT_DIFFICULTY'], String(appDefault), `${WHERE}: DEFAULT_DIFFICULTY should default to ${appDefault}`);
        assert.equal(appSettingsOf({ defaultDifficulty: 22 })['DEFAULT_DIFFICULTY'], '22', `${WHERE}: DEFAULT_DIFFICULTY does not follow the defaultDifficulty parameter`);
    });

    it('keep one tenant\'s ranges in flight under the instance cap, so a tenant cannot take every instance', () => {
        // Worst case one MineBlock range per instance: a tenant holds MAX_ACTIVE_WORKFLOWS x PARALLEL_RANGES instances.
        const perTenant = Number(settings()['MAX_ACTIVE_WORKFLOWS']) * Number(settings()['PARALLEL_RANGES']);
        const cap = template().parameters?.['maximumInstanceCount']?.['defaultValue'];
        assert.equal(typeof cap, 'number', 'infra/main.bicep param maximumInstanceCount needs a numeric default');
        assert.ok(
            Number.isInteger(perTenant) && perTenant < Number(cap),
            `${WHERE}: MAX_ACTIVE_WORKFLOWS x PARALLEL_RANGES is ${perTenant}, not under maximumInstanceCount (${String(cap)}): one tenant could take every instance (docs/deployment.md, "Scale-out on Flex Consumption")`
        );
    });

    it('give each instance about 2 activity slots per core of its size, overriding host.json', () => {
        const slots = (instanceMemoryMB?: number) =>
            appSettingsOf(instanceMemoryMB === undefined ? {} : { instanceMemoryMB })['AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions'];
        assert.deepEqual([slots(), slots(512), slots(2048), slots(4096)], ['2', '1', '2', '4'], `${WHERE}: maxConcurrentActivityFunctions per instance size`);
    });

    it('are set once, by the appsettings resource, and not in siteConfig, where a second list would replace them', () => {
        for (const site of deployed(deployment(), 'Microsoft.Web/sites')) {
            const siteConfig = at(site.body['properties'], ['siteConfig']);
            assert.equal(at(siteConfig, ['appSettings']), undefined, `${String(site.name)}: set app settings only in the config/appsettings resource, not in siteConfig.appSettings`);
        }
    });

});

describe('README and docs/', () => {
    it('are free of key-based storage instructions', () => {
        // Shared keys are off; docs telling people to paste a storage connection string would fail for them.
        for (const file of docFiles()) {
            assert.doesNotMatch(readRepoFile(file), /AccountKey=/, `${file} mentions AccountKey=, but the storage account refuses keys`);
        }
    });
});
