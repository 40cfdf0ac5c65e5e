/**
 * host.json, local.settings.json and the compiled template agree on names: the task hub, the backend each one selects,
 * and the route the MCP endpoint lives on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, readFunctionTimeoutSeconds } from '../../src/config';
import { getPathInsensitive, isRecord, readJson, repoRoot } from './files';
import { bicepSkip, template } from './template';

/** Task hub names each backend accepts. Azure Storage: letters and digits, starting with a letter, 3-45. */
const AZURE_STORAGE_HUB = /^[A-Za-z][A-Za-z0-9]{2,44}$/;
/** The Durable Task Scheduler's resource-name rule (letters, digits, hyphens; 3-64). */
const SCHEDULER_HUB = /^[A-Za-z0-9-]{3,64}$/;

const hostJson = readJson('host.json');
const localSettings = readJson('local.settings.json');
const localValues = isRecord(localSettings) && isRecord(localSettings['Values']) ? localSettings['Values'] : {};

function assertHubNameValid(name: unknown, where: string): void {
    assert.equal(typeof name, 'string', `${where}: no task hub name`);
    assert.match(String(name), AZURE_STORAGE_HUB, `${where}: "${String(name)}" is not a valid Azure Storage task hub name (letters and digits, starting with a letter, 3-45)`);
    assert.match(String(name), SCHEDULER_HUB, `${where}: "${String(name)}" is not a valid Durable Task Scheduler task hub name`);
}

describe('host.json', () => {
    it('takes the task hub from the TASKHUB_NAME setting', () => {
        const hubName = getPathInsensitive(hostJson, ['extensions', 'durableTask', 'hubName']);
        assert.equal(hubName, '%TASKHUB_NAME%', 'host.json extensions.durableTask.hubName must be "%TASKHUB_NAME%"');
    });

    it('checks in the Azure Storage backend, so func start runs on Azurite', () => {
        const provider = getPathInsensitive(hostJson, ['extensions', 'durableTask', 'storageProvider', 'type']);
        assert.ok(provider === undefined || String(provider).toLowerCase() === 'azurestorage', `host.json selects storage provider "${String(provider)}"; keep Azure Storage here and switch in Azure with app settings`);
    });

    it('uses an extension bundle that contains the scheduler provider (4.30.0 or later)', () => {
        const id = getPathInsensitive(hostJson, ['extensionBundle', 'id']);
        const range = String(getPathInsensitive(hostJson, ['extensionBundle', 'version']) ?? '');
        assert.equal(id, 'Microsoft.Azure.Functions.ExtensionBundle', 'host.json must use the GA extension bundle');
        const lower = /^\[\s*(\d+)\.(\d+|\*)/.exec(range);
        assert.ok(lower, `host.json extensionBundle.version "${range}" is not a range like [4.30.0, 5.0.0)`);
        // "4.*" means the newest 4.x, which is past 4.30.0.
        const major = Number(lower[1]);
        const minor = lower[2] === '*' ? undefined : Number(lower[2]);
        const recentEnough = major > 4 || (major === 4 && (minor === undefined || minor >= 30));
        assert.ok(recentEnough, `host.json extensionBundle.version "${range}" may resolve below 4.30.0, which lacks the scheduler provider`);
    });
});

describe('local.settings.json', () => {
    it('runs on Azurite and the Node worker', () => {
        assert.equal(localValues['AzureWebJobsStorage'], 'UseDevelopmentStorage=true', 'local.settings.json AzureWebJobsStorage must be UseDevelopmentStorage=true (Azurite)');
        assert.equal(localValues['FUNCTIONS_WORKER_RUNTIME'], 'node', 'local.settings.json FUNCTIONS_WORKER_RUNTIME must be node');
        const overrides = Object.keys(localValues).filter((k) => /^AzureFunctionsJobHost__extensions__durableTask__storageProvider__type$/i.test(k));
        assert.deepEqual(overrides, [], 'local.settings.json must not switch the durable backend: local runs use Azure Storage on Azurite');
    });

    it('names a task hub valid for both backends, and settings the app accepts', () => {
        assertHubNameValid(localValues['TASKHUB_NAME'], 'local.settings.json TASKHUB_NAME');
        const env = Object.fromEntries(Object.entries(localValues).map(([k, v]) => [k, String(v)]));
        try {
            parseConfig(env, readFunctionTimeoutSeconds(repoRoot(), {}));
        } catch (error) {
            assert.fail(`local.settings.json would stop the app at start: ${(error as Error).message}`);
        }
    });
});

describe('Bicep task hub', { skip: bicepSkip }, () => {
    it('defaults to a name valid for both backends', () => {
        const name = template().parameters?.['taskHubName']?.['defaultValue'];
        assertHubNameValid(name, 'infra/main.bicep param taskHubName');
    });
});
