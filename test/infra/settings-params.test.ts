/**
 * Every setting a user changes is an azd environment value: for each app setting the code reads (docs/contract.md,
 * "Settings"; TASKHUB_NAME aside, which the scheduler's task hub gives), infra/main.bicep has a parameter defaulting
 * to the code's own default, infra/main.parameters.json feeds it from the azd environment value of the same name, and
 * the app setting follows it. Before provisioning, the preprovision hook checks the values with the app's own rules
 * (infra/hooks/check-settings.mjs): ENABLED_JOBS against the registry, the one list of jobs, which the template does not repeat.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, SETTING_NAMES, type SettingName } from '../../src/config';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { JOB_NAMES } from '../../src/jobs';
import type { Value } from '@mcp-mining/testkit/arm';
import { readJson, readRepoFile, repoRoot } from './files';
import { appSettingsOf, bicepSkip, template } from './template';

/**
 * TASKHUB_NAME is the scheduler's task hub (main.bicep taskHubName), and MCP_FUNCTION_KEY_REQUIRED follows AUTH_MODE
 * (false with Entra sign-in): neither is a value of its own.
 */
const DERIVED = ['TASKHUB_NAME', 'MCP_FUNCTION_KEY_REQUIRED'];
const USER_SETTINGS = SETTING_NAMES.filter((name) => !DERIVED.includes(name));

/** The Bicep parameter of a setting: MAX_ACTIVE_WORKFLOWS is maxActiveWorkflows. */
const paramOf = (name: SettingName) => name.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The app's default of a setting, as an app setting string (the code's own parse of a configuration without it). */
function codeDefault(name: SettingName): string {
    const config = parseConfig({ TASKHUB_NAME: 'probe' }) as unknown as Record<string, unknown>;
    const value = config[paramOf(name)];
    return Array.isArray(value) ? value.join(',') : String(value);
}

/** The setting names of docs/contract.md's Settings table. */
function documentedSettings(): string[] {
    const text = readRepoFile('docs/contract.md');
    const section = text.slice(text.indexOf('## Settings'));
    return [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1] ?? '');
}

/** infra/hooks/check-settings.mjs, the preprovision hook, as the tests call it. */
async function preprovisionHook(): Promise<{ checkSettings(root: string, env: Record<string, string | undefined>): string | undefined }> {
    return (await import(pathToFileURL(join(repoRoot(), 'infra/hooks/check-settings.mjs')).href)) as {
        checkSettings(root: string, env: Record<string, string | undefined>): string | undefined;
    };
}

describe('settings as azd environment values', { skip: bicepSkip }, () => {
    it('docs/contract.md lists exactly the settings the code reads', () => {
        assert.deepEqual([...documentedSettings()].sort(), [...SETTING_NAMES].sort());
    });

    it('each is a parameter of infra/main.bicep, defaulting to the code\'s default, fed from the azd value of its name', () => {
        const declared = template().parameters ?? {};
        const fed = (readJson('infra/main.parameters.json') as { parameters: Record<string, { value: string }> }).parameters;
        for (const name of USER_SETTINGS) {
            const param = paramOf(name);
            const definition = declared[param];
            assert.ok(definition, `infra/main.bicep has no param ${param} for ${name}`);
            assert.equal(String(definition['defaultValue']), codeDefault(name), `infra/main.bicep param ${param} defaults to ${String(definition['defaultValue'])}, src/config.ts ${name} to ${codeDefault(name)}`);
            assert.equal(fed[param]?.value, `\${${name}}`, `infra/main.parameters.json should feed ${param} from \${${name}}`);
            assert.equal(appSettingsOf()[name], codeDefault(name), `the app setting ${name} defaults to the code's default`);
        }
    });

    it('each app setting follows its parameter', () => {
        const other: Partial<Record<SettingName, Value>> = { ENABLED_JOBS: 'mining,count_primes', ALLOWED_ORIGINS: 'https://tools.example' };
        for (const name of USER_SETTINGS) {
            const value = other[name] ?? Number(codeDefault(name)) + 1;
            const expected = typeof value === 'number' ? String(value) : value;
            assert.equal(appSettingsOf({ [paramOf(name)]: value })[name], expected, `${name} does not follow the parameter ${paramOf(name)}`);
        }
    });

    it('bounds each numeric parameter as the code bounds its setting', () => {
        const declared = template().parameters ?? {};
        for (const name of USER_SETTINGS) {
            const definition = declared[paramOf(name)] ?? {};
            if (definition['type'] !== 'int') continue;
            const { minValue, maxValue } = definition as { minValue?: number; maxValue?: number };
            assert.ok(minValue !== undefined, `${paramOf(name)} has no @minValue`);
            assert.throws(() => parseConfig({ TASKHUB_NAME: 'probe', [name]: String(minValue - 1) }), new RegExp(name), `${name}: the code accepts ${minValue - 1}, under the Bicep's @minValue`);
            if (maxValue !== undefined) assert.throws(() => parseConfig({ TASKHUB_NAME: 'probe', [name]: String(maxValue + 1) }), new RegExp(name), `${name}: the code accepts ${maxValue + 1}, over the Bicep's @maxValue`);
        }
    });

    it('ENABLED_JOBS: the template names no job (the registry is the one list) and passes the value on', () => {
        const bicep = readRepoFile('infra/main.bicep');
        const quoted = (name: string) => bicep.split(`'${name}'`).length - 1;
        // The default job is the parameter's default value, as in src/config.ts; no other job is named.
        const byDefault = parseConfig({ TASKHUB_NAME: 'probe' }).enabledJobs;
        for (const name of JOB_NAMES) assert.equal(quoted(name), byDefault.includes(name) ? 1 : 0, `infra/main.bicep names the job ${name}`);
        assert.equal(appSettingsOf({ enabledJobs: JOB_NAMES.join(',') })['ENABLED_JOBS'], JOB_NAMES.join(','));
    });

    it('a setting left unset in the azd environment deploys the code\'s default, and the preprovision hook lets it pass; a bad one is refused by name', async () => {
        const declared = template().parameters ?? {};
        const fed = (readJson('infra/main.parameters.json') as { parameters: Record<string, { value: string }> }).parameters;
        // What azd passes to the template for an environment: `${NAME}` is the value of NAME, an empty string when
        // unset, and a parameter whose value is empty is left out so that its Bicep default applies
        // (Azure/azure-dev#2896: "Has Default | ${ENV_VAR} | Empty string | No prompt, use bicep default value").
        const azdParameters = (env: Record<string, string>): Record<string, Value> => {
            const resolved: Record<string, Value> = {};
            for (const name of USER_SETTINGS) {
                const param = paramOf(name);
                const value = (fed[param]?.value ?? '').replace(/\$\{([A-Z_]+)\}/g, (_m, v: string) => env[v] ?? '');
                if (value === '') continue;
                resolved[param] = declared[param]?.['type'] === 'int' ? Number(value) : value;
            }
            return resolved;
        };
        // The app's configuration from the deployed app settings, the derived ones (DERIVED) as the code's defaults.
        const deployedConfig = (env: Record<string, string>) => {
            const settings = Object.entries(appSettingsOf(azdParameters(env))).filter(([name]) => USER_SETTINGS.includes(name as SettingName));
            return parseConfig({ TASKHUB_NAME: 'probe', ...Object.fromEntries(settings.map(([name, value]) => [name, String(value)])) });
        };
        const hook = await preprovisionHook();
        const defaults = parseConfig({ TASKHUB_NAME: 'probe' });

        const unset = Object.fromEntries(USER_SETTINGS.map((name) => [name, '']));
        assert.equal(hook.checkSettings(repoRoot(), unset), undefined, 'the hook refuses an environment with every setting unset');
        assert.deepEqual(deployedConfig(unset), defaults);
        // One setting set, the rest unset: that one is deployed, the others keep the code's defaults.
        assert.deepEqual(deployedConfig({ ...unset, WAIT_BUDGET_SECONDS: '7' }), { ...defaults, waitBudgetSeconds: 7 });
        // A bad value is refused before anything is created, naming the setting.
        assert.match(hook.checkSettings(repoRoot(), { ...unset, WAIT_BUDGET_SECONDS: 'soon' }) ?? '', /WAIT_BUDGET_SECONDS/);
    });

    it('ENABLED_JOBS and the other settings: the preprovision hook refuses what the app would refuse at start, with the app\'s sentence', async () => {
        const hook = await preprovisionHook();
        const check = (env: Record<string, string | undefined>) => hook.checkSettings(repoRoot(), env);
        // azd hands an unset value over as an empty string: the template then uses the code's default.
        assert.equal(check({ ENABLED_JOBS: '', MAX_WORK: '' }), undefined);
        assert.equal(check({ ENABLED_JOBS: JOB_NAMES.join(', '), PATH: '/usr/bin' }), undefined);
        assert.match(check({ ENABLED_JOBS: 'mining,sorting' }) ?? '', new RegExp(`ENABLED_JOBS must list jobs from ${JOB_NAMES.join(', ')}`));
        assert.match(check({ ENABLED_JOBS: ',,' }) ?? '', /ENABLED_JOBS must name at least one of/);
        assert.match(check({ PARALLEL_RANGES: '99' }) ?? '', /PARALLEL_RANGES/);
    });
});
