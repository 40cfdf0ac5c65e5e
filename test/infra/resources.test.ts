/**
 * The compiled template's resources, with the properties that make them work together: Flex Consumption
 * on Node 22, storage without shared keys, a Consumption scheduler that admits callers, monitoring with
 * Entra-only auth, parameters azd can fill, and the outputs the deployment guide (docs/deployment.md) names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allResources, at, deployed, moduleNamed, referenceOf, resourceIdOf, Runtime, type Deployment, type Resource, type Value } from '@mcp-mining/testkit/arm';
import { deploySection, getPathInsensitive, isRecord, readJson } from './files';
import { bicepSkip, deployment, only, template } from './template';

const root = (): Deployment => deployment();
const one = (type: string, from: Deployment = root()): Resource => only(deployed(from, type), type);
const property = (resource: Resource, path: readonly string[]): Value | undefined => at(resource.body, path);

describe('main.bicep (compiled)', { skip: bicepSkip }, () => {
    it('deploys at subscription scope into its own resource group, which holds every module', () => {
        assert.match(template().$schema, /subscriptionDeploymentTemplate\.json#?$/, 'infra/main.bicep must set targetScope = \'subscription\'');
        const rg = one('Microsoft.Resources/resourceGroups');
        assert.equal(rg.name, 'rg-test-env', 'the resource group should be named rg-<environment name>');
        for (const module of root().resources.filter((r) => r.module)) {
            assert.equal(module.body['resourceGroup'], rg.name, `module ${module.symbol} should deploy into ${String(rg.name)}`);
        }
    });

    it('is fed by main.parameters.json only with parameters it declares, and every parameter has a value', () => {
        const file = readJson('infra/main.parameters.json');
        const parameters = isRecord(file) && isRecord(file['parameters']) ? file['parameters'] : undefined;
        assert.ok(parameters, 'infra/main.parameters.json has no "parameters" object');
        const declared = template().parameters ?? {};
        const unknown = Object.keys(parameters).filter((name) => !(name in declared));
        assert.deepEqual(unknown, [], `infra/main.parameters.json sets ${unknown.join(', ')}, which infra/main.bicep does not declare`);
        const unfed = Object.entries(declared)
            .filter(([name, p]) => !('defaultValue' in p) && !(name in parameters))
            .map(([name]) => name);
        assert.deepEqual(unfed, [], `infra/main.bicep params ${unfed.join(', ')} have no default and no value in main.parameters.json`);
    });

    it('passes every module only parameters the module declares, and all it requires', () => {
        for (const module of root().resources.filter((r) => r.module)) {
            const declared = module.module?.template.parameters ?? {};
            const given = Object.keys((at(module.body, ['properties', 'parameters']) ?? {}) as object);
            const unknown = given.filter((name) => !(name in declared));
            assert.deepEqual(unknown, [], `infra/main.bicep passes ${unknown.join(', ')} to module ${module.symbol}, which declares no such param`);
            const missing = Object.entries(declared)
                .filter(([name, p]) => !('defaultValue' in p) && !given.includes(name))
                .map(([name]) => name);
            assert.deepEqual(missing, [], `infra/main.bicep module ${module.symbol} does not pass ${missing.join(', ')}, which it requires`);
        }
    });

    it('describes every parameter azd may prompt for', () => {
        const undescribed = Object.entries(template().parameters ?? {})
            .filter(([, p]) => !(isRecord(p['metadata']) && typeof p['metadata']['description'] === 'string' && p['metadata']['description'] !== ''))
            .map(([name]) => name);
        assert.deepEqual(undescribed, [], `infra/main.bicep params ${undescribed.join(', ')} need an @description (infra/bicepconfig.json relies on it)`);
    });

    it('offers only the regions where Flex Consumption and the scheduler both run, and asks azd for one', () => {
        const location = template().parameters?.['location'];
        const allowed = location?.['allowedValues'];
        assert.ok(Array.isArray(allowed) && allowed.length > 0, 'infra/main.bicep param location needs an @allowed list');
        for (const region of allowed) assert.ok(deploySection().includes(`\`${String(region)}\``), `docs/deployment.md should list the region ${String(region)}`);
        assert.equal(getPathInsensitive(location, ['metadata', 'azd', 'type']), 'location', 'param location should carry azd metadata type "location"');
        assert.throws(() => deployment({ location: 'westeurope' }), /not among its allowed values/, 'a region outside the list should be refused');
    });

    it('uses one API version per resource type, and no preview versions', () => {
        const versions = new Map<string, Set<string>>();
        for (const resource of allResources(root())) {
            assert.match(resource.apiVersion, /^\d{4}-\d{2}-\d{2}$/, `${resource.type} uses API version ${resource.apiVersion}; use a stable one`);
            versions.set(resource.type, (versions.get(resource.type) ?? new Set()).add(resource.apiVersion));
        }
        const mixed = [...versions].filter(([, v]) => v.size > 1).map(([type, v]) => `${type}: ${[...v].join(', ')}`);
        assert.deepEqual(mixed, [], 'a resource read through another API version than it is deployed with can miss properties');
    });

    it('has the outputs the deployment guide names, each with the value azd stores', () => {
        const outputs = root().outputs;
        const site = one('Microsoft.Web/sites');
        const scheduler = one('Microsoft.DurableTask/schedulers');
        const hostName = new Runtime(`${referenceOf(site).text}.defaultHostName`);
        const prefix = String(getPathInsensitive(readJson('host.json'), ['extensions', 'http', 'routePrefix']) ?? 'api');
        assert.equal(outputs['AZURE_RESOURCE_GROUP'], 'rg-test-env');
        assert.equal(outputs['AZURE_FUNCTION_APP_NAME'], site.name);
        assert.equal(outputs['SERVICE_API_NAME'], site.name, 'SERVICE_API_NAME (azd\'s name for the api service\'s resource) must be the function app');
        assert.deepEqual(outputs['FUNCTION_APP_HOSTNAME'], hostName);
        assert.equal(outputs['MCP_ENDPOINT'], `https://${String(hostName)}/${prefix}/mcp`, 'MCP_ENDPOINT must be the app\'s MCP route');
        assert.deepEqual(outputs['DTS_ENDPOINT'], new Runtime(`${referenceOf(scheduler).text}.endpoint`));
        assert.equal(outputs['DTS_TASK_HUB_NAME'], 'mininghub');
        for (const name of deploySection().match(/azd env get-value ([A-Z_]+)/g) ?? []) {
            const output = name.replace('azd env get-value ', '');
            assert.ok(output in outputs, `docs/deployment.md runs "${name}", but infra/main.bicep has no output ${output}`);
        }
    });
});

describe('function app (compiled)', { skip: bicepSkip }, () => {
    const plan = (): Resource => one('Microsoft.Web/serverfarms');
    const site = (): Resource => one('Microsoft.Web/sites');

    it('runs on a Linux Flex Consumption (FC1) plan', () => {
        assert.equal(property(plan(), ['sku', 'name']), 'FC1', 'the plan sku must be FC1');
        assert.equal(property(plan(), ['sku', 'tier']), 'FlexConsumption', 'the plan tier must be FlexConsumption');
        assert.equal(property(plan(), ['properties', 'reserved']), true, 'the plan must be Linux (reserved: true)');
        assert.equal(property(site(), ['kind']), 'functionapp,linux', "the site kind must be 'functionapp,linux'");
        assert.deepEqual(property(site(), ['properties', 'serverFarmId']), resourceIdOf(plan()), 'the site must run on the plan');
        assert.equal(property(site(), ['properties', 'httpsOnly']), true, 'the site must be https only');
    });

    it('runs Node 22', () => {
        const runtime = ['properties', 'functionAppConfig', 'runtime'];
        assert.equal(property(site(), [...runtime, 'name']), 'node', 'functionAppConfig.runtime.name must be node');
        assert.equal(property(site(), [...runtime, 'version']), '22', "functionAppConfig.runtime.version must be '22'");
    });

    it('runs as the user-assigned identity and deploys from a blob container it reads with it', () => {
        const identity = one('Microsoft.ManagedIdentity/userAssignedIdentities');
        const identityId = resourceIdOf(identity);
        assert.equal(property(site(), ['identity', 'type']), 'UserAssigned', 'the site must run as the user-assigned identity');
        assert.deepEqual(Object.keys(property(site(), ['identity', 'userAssignedIdentities']) ?? {}), [String(identityId)], `the site must run as ${String(identity.name)}`);

        const storage = ['properties', 'functionAppConfig', 'deployment', 'storage'];
        assert.equal(property(site(), [...storage, 'type']), 'blobContainer', 'deployment storage type must be blobContainer');
        assert.equal(property(site(), [...storage, 'authentication', 'type']), 'UserAssignedIdentity', 'deployment storage must authenticate with the user-assigned identity');
        assert.deepEqual(property(site(), [...storage, 'authentication', 'userAssignedIdentityResourceId']), identityId, `deployment storage must use ${String(identity.name)}`);

        const account = one('Microsoft.Storage/storageAccounts');
        const container = one('Microsoft.Storage/storageAccounts/blobServices/containers');
        const containerName = String(container.name).split('/').pop() ?? '';
        assert.equal(
            property(site(), [...storage, 'value']),
            `${String(new Runtime(`${referenceOf(account).text}.primaryEndpoints.blob`))}${containerName}`,
            `deployment storage must be the container ${containerName} of ${String(account.name)}`
        );
    });

    it('sets Flex scale limits from the parameters', () => {
        const scale = ['properties', 'functionAppConfig', 'scaleAndConcurrency'];
        assert.equal(property(site(), [...scale, 'maximumInstanceCount']), template().parameters?.['maximumInstanceCount']?.['defaultValue']);
        assert.equal(property(site(), [...scale, 'instanceMemoryMB']), template().parameters?.['instanceMemoryMB']?.['defaultValue']);
        assert.deepEqual(property(site(), [...scale, 'alwaysReady']), [], 'no always-ready instances (billed while idle) unless asked for');
        const scaled = one('Microsoft.Web/sites', deployment({ alwaysReadyDurableInstances: 1 }));
        assert.deepEqual(at(scaled.body, [...scale, 'alwaysReady']), [{ name: 'durable', instanceCount: 1 }], 'alwaysReadyDurableInstances should keep durable instances ready');
    });

    it('is tagged for azd with the service name azure.yaml deploys', () => {
        const tags = property(site(), ['tags']);
        assert.equal(at(tags, ['azd-service-name']), 'api', "the function app needs the tag 'azd-service-name': 'api'");
        assert.equal(at(tags, ['azd-env-name']), 'test-env', "the function app needs the tag 'azd-env-name'");
    });
});

describe('storage (compiled)', { skip: bicepSkip }, () => {
    it('refuses shared keys and anonymous blob access', () => {
        const account = one('Microsoft.Storage/storageAccounts');
        assert.equal(property(account, ['properties', 'allowSharedKeyAccess']), false, 'allowSharedKeyAccess must be false');
        assert.equal(property(account, ['properties', 'allowBlobPublicAccess']), false, 'allowBlobPublicAccess must be false');
        assert.equal(property(account, ['properties', 'minimumTlsVersion']), 'TLS1_2', 'minimumTlsVersion must be TLS1_2');
    });
});

describe('durable task scheduler (compiled)', { skip: bicepSkip }, () => {
    const scheduler = (from: Deployment = root()): Resource => one('Microsoft.DurableTask/schedulers', from);
    const hub = (from: Deployment = root()): Resource => one('Microsoft.DurableTask/schedulers/taskHubs', from);

    it('uses the Consumption SKU and holds the task hub', () => {
        assert.equal(property(scheduler(), ['properties', 'sku', 'name']), 'Consumption', 'scheduler sku must be Consumption');
        assert.ok(String(hub().name).startsWith(`${String(scheduler().name)}/`), `the task hub ${String(hub().name)} must be a child of the scheduler ${String(scheduler().name)}`);
    });

    it('admits callers: the IP allow-list is never empty, and follows the dtsIpAllowlist parameter', () => {
        const declared = template().parameters?.['dtsIpAllowlist'];
        assert.ok(Number(declared?.['minLength']) >= 1, 'infra/main.bicep param dtsIpAllowlist needs @minLength(1): an empty allow-list blocks every caller (403)');
        const allowlist = property(scheduler(), ['properties', 'ipAllowlist']);
        assert.ok(Array.isArray(allowlist) && allowlist.length > 0, 'the scheduler ipAllowlist is empty: the scheduler would refuse every caller (403)');
        assert.deepEqual(allowlist, declared?.['defaultValue'], 'the scheduler ipAllowlist should default to the dtsIpAllowlist default');
        const narrowed = scheduler(deployment({ dtsIpAllowlist: ['203.0.113.0/24'] }));
        assert.deepEqual(at(narrowed.body, ['properties', 'ipAllowlist']), ['203.0.113.0/24'], 'the scheduler ipAllowlist does not follow the dtsIpAllowlist parameter');
    });

    it('names the task hub with the value the app gets as TASKHUB_NAME', () => {
        for (const taskHubName of [undefined, 'otherhub']) {
            const from = deployment(taskHubName === undefined ? {} : { taskHubName });
            const app = moduleNamed(from, 'functionApp');
            const settings = deployed(app, 'Microsoft.Web/sites/config').find((c) => String(c.name).endsWith('/appsettings'))?.body['properties'];
            const hubName = String(hub(from).name).split('/').pop();
            assert.equal(at(settings, ['TASKHUB_NAME']), hubName, `TASKHUB_NAME app setting (${String(at(settings, ['TASKHUB_NAME']))}) differs from the task hub resource name (${String(hubName)})`);
        }
    });
});

describe('monitoring (compiled)', { skip: bicepSkip }, () => {
    it('turns off local (key) auth on workspace-based Application Insights', () => {
        const component = one('Microsoft.Insights/components');
        const workspace = one('Microsoft.OperationalInsights/workspaces');
        assert.equal(property(component, ['properties', 'DisableLocalAuth']), true, 'Application Insights needs DisableLocalAuth: true');
        assert.deepEqual(property(component, ['properties', 'WorkspaceResourceId']), resourceIdOf(workspace), 'Application Insights should be based on the Log Analytics workspace');
    });
});
