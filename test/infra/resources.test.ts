/**
 * The resources issue 4 asks for, with the properties that make them work together: Flex Consumption on
 * Node 22, storage without shared keys, a Consumption scheduler that admits callers, monitoring with
 * Entra-only auth, and parameters azd can fill.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    arrayItems,
    entry,
    entryAt,
    isRecord,
    literal,
    loadDeployment,
    moduleFile,
    readJson,
    resolve,
    resourcesOfType,
    statement,
    statementsOf,
    stringLiteral,
    type BicepFile,
    type Statement,
} from './bicep';

const deployment = loadDeployment();

function onlyResource(file: BicepFile, type: string): Statement {
    const found = resourcesOfType(file, type);
    assert.equal(found.length, 1, `${file.path} should declare exactly one ${type}, found ${found.length}`);
    return found[0] as Statement;
}

function propertyAt(file: BicepFile, resource: Statement, path: readonly string[]): string | undefined {
    return entryAt(resource.value, path, `${file.path} ${resource.name}`);
}

describe('main.bicep', () => {
    it('deploys at subscription scope into its own resource group', () => {
        assert.equal(stringLiteral(statement(deployment.main, 'targetScope', '').value), 'subscription', 'infra/main.bicep must set targetScope = \'subscription\'');
        onlyResource(deployment.main, 'Microsoft.Resources/resourceGroups');
    });

    it('is fed by main.parameters.json only with parameters it declares', () => {
        const file = readJson('infra/main.parameters.json');
        const parameters = isRecord(file) && isRecord(file['parameters']) ? file['parameters'] : undefined;
        assert.ok(parameters, 'infra/main.parameters.json has no "parameters" object');
        const declared = statementsOf(deployment.main, 'param');
        const unknown = Object.keys(parameters).filter((name) => !declared.some((p) => p.name === name));
        assert.deepEqual(unknown, [], `infra/main.parameters.json sets ${unknown.join(', ')}, which infra/main.bicep does not declare`);
        const unfed = declared.filter((p) => p.value === '' && !(p.name in parameters)).map((p) => p.name);
        assert.deepEqual(unfed, [], `infra/main.bicep params ${unfed.join(', ')} have no default and no value in main.parameters.json`);
    });

    it('passes every module only parameters the module declares', () => {
        for (const module of statementsOf(deployment.main, 'module')) {
            const target = moduleFile(deployment, module.type);
            const args = entry(module.value, 'params', `infra/main.bicep module ${module.name}`) ?? '{}';
            for (const name of [...args.matchAll(/^\s*(\w+)\s*:/gm)].map((m) => m[1] ?? '')) {
                assert.ok(
                    statementsOf(target, 'param').some((p) => p.name === name),
                    `infra/main.bicep passes ${name} to ${module.type}, which declares no such param`
                );
            }
            const required = statementsOf(target, 'param').filter((p) => p.value === '').map((p) => p.name);
            const missing = required.filter((name) => !new RegExp(`^\\s*${name}\\s*:`, 'm').test(args));
            assert.deepEqual(missing, [], `infra/main.bicep module ${module.name} does not pass ${missing.join(', ')}, required by ${module.type}`);
        }
    });
});

describe('function app', () => {
    const file = moduleFile(deployment, 'app/function-app.bicep');
    // Looked up inside each test, so a missing resource fails that test rather than the whole suite.
    const plan = (): Statement => onlyResource(file, 'Microsoft.Web/serverfarms');
    const site = (): Statement => onlyResource(file, 'Microsoft.Web/sites');

    it('runs on a Linux Flex Consumption (FC1) plan', () => {
        assert.equal(stringLiteral(propertyAt(file, plan(), ['sku', 'name'])), 'FC1', `${file.path}: the plan sku must be FC1`);
        assert.equal(stringLiteral(propertyAt(file, plan(), ['sku', 'tier'])), 'FlexConsumption', `${file.path}: the plan tier must be FlexConsumption`);
        assert.equal(literal(propertyAt(file, plan(), ['properties', 'reserved'])), true, `${file.path}: the plan must be Linux (reserved: true)`);
        assert.equal(stringLiteral(entry(site().value, 'kind', file.path)), 'functionapp,linux', `${file.path}: the site kind must be 'functionapp,linux'`);
    });

    it('runs Node 22', () => {
        const runtime = ['properties', 'functionAppConfig', 'runtime'];
        assert.equal(stringLiteral(propertyAt(file, site(), [...runtime, 'name'])), 'node', `${file.path}: functionAppConfig.runtime.name must be 'node'`);
        assert.equal(stringLiteral(propertyAt(file, site(), [...runtime, 'version'])), '22', `${file.path}: functionAppConfig.runtime.version must be '22'`);
    });

    it('deploys from a blob container it reads with the user-assigned identity', () => {
        const storage = ['properties', 'functionAppConfig', 'deployment', 'storage'];
        assert.equal(stringLiteral(propertyAt(file, site(), [...storage, 'type'])), 'blobContainer', `${file.path}: deployment storage type must be blobContainer`);
        assert.equal(
            stringLiteral(propertyAt(file, site(), [...storage, 'authentication', 'type'])),
            'UserAssignedIdentity',
            `${file.path}: deployment storage must authenticate with the user-assigned identity`
        );
        assert.equal(propertyAt(file, site(), [...storage, 'authentication', 'userAssignedIdentityResourceId']), 'identityId', `${file.path}: deployment storage must use the identity passed in as identityId`);
        assert.match(propertyAt(file, site(), ['identity', 'type']) ?? '', /'UserAssigned'/, `${file.path}: the site must run as the user-assigned identity`);
    });

    it('sets Flex scale limits', () => {
        const scale = ['properties', 'functionAppConfig', 'scaleAndConcurrency'];
        for (const key of ['maximumInstanceCount', 'instanceMemoryMB']) {
            assert.ok(propertyAt(file, site(), [...scale, key]), `${file.path}: functionAppConfig.scaleAndConcurrency.${key} is not set`);
        }
    });
});

describe('storage', () => {
    const file = moduleFile(deployment, 'app/storage.bicep');

    it('refuses shared keys and anonymous blob access', () => {
        const account = onlyResource(file, 'Microsoft.Storage/storageAccounts');
        assert.equal(literal(propertyAt(file, account, ['properties', 'allowSharedKeyAccess'])), false, `${file.path}: allowSharedKeyAccess must be false`);
        assert.equal(literal(propertyAt(file, account, ['properties', 'allowBlobPublicAccess'])), false, `${file.path}: allowBlobPublicAccess must be false`);
    });
});

describe('durable task scheduler', () => {
    const file = moduleFile(deployment, 'app/scheduler.bicep');
    const scheduler = (): Statement => onlyResource(file, 'Microsoft.DurableTask/schedulers');
    const hub = (): Statement => onlyResource(file, 'Microsoft.DurableTask/schedulers/taskHubs');

    it('uses the Consumption SKU and holds the task hub', () => {
        assert.equal(stringLiteral(propertyAt(file, scheduler(), ['properties', 'sku', 'name'])), 'Consumption', `${file.path}: scheduler sku must be Consumption`);
        assert.equal(entry(hub().value, 'parent', file.path), scheduler().name, `${file.path}: the task hub's parent must be the scheduler`);
    });

    it('admits callers: the IP allow-list is never empty', () => {
        const expression = propertyAt(file, scheduler(), ['properties', 'ipAllowlist']) ?? '';
        let items: string[];
        if (expression.startsWith('[')) {
            items = arrayItems(expression, file.path);
        } else {
            // A parameter: main.bicep passes it through from its own parameter with a default.
            const argument = entry(entry(statement(deployment.main, 'module', 'scheduler').value, 'params', 'infra/main.bicep') ?? '{}', expression, 'infra/main.bicep');
            const mainParam = argument && /^\w+$/.test(argument) ? statement(deployment.main, 'param', argument) : undefined;
            assert.ok(mainParam, `infra/main.bicep must pass ${expression} to the scheduler from one of its parameters`);
            assert.ok(mainParam.decorators.includes('@minLength(1)'), `infra/main.bicep param ${mainParam.name} needs @minLength(1): an empty allow-list blocks every caller`);
            items = arrayItems(mainParam.value, 'infra/main.bicep');
        }
        assert.ok(items.length > 0, 'the scheduler ipAllowlist is empty: the scheduler would refuse every caller (403)');
    });

    it('names the task hub with the value the app gets as TASKHUB_NAME', () => {
        const appFile = moduleFile(deployment, 'app/function-app.bicep');
        const appSetting = /^\s*TASKHUB_NAME:\s*(.+)$/m.exec(statement(appFile, 'var', 'appSettings').value)?.[1] ?? '';
        const settingValue = resolve(deployment, appFile, appSetting);
        const hubName = resolve(deployment, file, entry(hub().value, 'name', file.path) ?? '');
        assert.notEqual(hubName, undefined, `${file.path}: cannot tell the task hub name`);
        assert.equal(settingValue, hubName, `TASKHUB_NAME app setting (${String(settingValue)}) differs from the task hub resource name (${String(hubName)})`);
    });
});

describe('monitoring', () => {
    const file = moduleFile(deployment, 'app/monitoring.bicep');

    it('turns off local (key) auth on Application Insights', () => {
        const component = onlyResource(file, 'Microsoft.Insights/components');
        assert.equal(literal(propertyAt(file, component, ['properties', 'disableLocalAuth'])), true, `${file.path}: Application Insights needs disableLocalAuth: true`);
        assert.ok(propertyAt(file, component, ['properties', 'WorkspaceResourceId']), `${file.path}: Application Insights should be workspace-based`);
        onlyResource(file, 'Microsoft.OperationalInsights/workspaces');
    });
});
