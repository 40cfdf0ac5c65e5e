/**
 * The postdeploy hook (infra/hooks/smoke-after-deploy.mjs) that runs the smoke check after `azd deploy`:
 * wired in azure.yaml on both shells without failing the deployment, fed by the template's outputs, and
 * skipped when asked; `npm run smoke` is the command it and the deployment guide run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { deploySection, getPathInsensitive, parseSimpleYaml, readRepoFile, repoRoot } from './files';
import { bicepSkip, deployment } from './template';

interface SmokeHook {
    SWITCH: string;
    settingsFrom(env: NodeJS.ProcessEnv): { skip: string } | { url: string; app: string; group: string; scope: string };
}

const HOOK = 'infra/hooks/smoke-after-deploy.mjs';
const load = async (): Promise<SmokeHook> => (await import(pathToFileURL(join(repoRoot(), HOOK)).href)) as SmokeHook;
const OUTPUTS = { MCP_ENDPOINT: 'https://h/api/mcp', AZURE_FUNCTION_APP_NAME: 'func-api-x', AZURE_RESOURCE_GROUP: 'rg-x', MCP_AUTH_SCOPE: 'api://id/user_impersonation' };

describe('the postdeploy smoke check', () => {
    it('runs after every deploy on both shells, and a failure does not fail azd', () => {
        const yaml = parseSimpleYaml(readRepoFile('azure.yaml'), 'azure.yaml');
        for (const platform of ['posix', 'windows']) {
            assert.equal(getPathInsensitive(yaml, ['hooks', 'postdeploy', platform, 'run']), `node ${HOOK}`);
            assert.equal(getPathInsensitive(yaml, ['hooks', 'postdeploy', platform, 'continueOnError']), 'true');
        }
    });

    it('reads the endpoint, app, group and scope azd stores, and is skipped with SMOKE_AFTER_DEPLOY=false', async () => {
        const { settingsFrom, SWITCH } = await load();
        assert.deepEqual(settingsFrom(OUTPUTS), { url: OUTPUTS.MCP_ENDPOINT, app: OUTPUTS.AZURE_FUNCTION_APP_NAME, group: OUTPUTS.AZURE_RESOURCE_GROUP, scope: OUTPUTS.MCP_AUTH_SCOPE });
        assert.ok('skip' in settingsFrom({ ...OUTPUTS, [SWITCH]: 'false' }));
        assert.ok('skip' in settingsFrom({ MCP_ENDPOINT: OUTPUTS.MCP_ENDPOINT }), 'without the outputs of a provisioned environment it must skip, not fail');
        assert.ok(deploySection().includes(SWITCH), `docs/deployment.md should explain ${SWITCH}`);
    });

    it('gets every value it reads from an output of infra/main.bicep', { skip: bicepSkip }, () => {
        const outputs = deployment().outputs;
        for (const name of Object.keys(OUTPUTS)) assert.ok(name in outputs, `${HOOK} reads ${name}, which infra/main.bicep does not output`);
    });

    it('is npm run smoke, which builds first', () => {
        const scripts = (JSON.parse(readRepoFile('package.json')) as { scripts?: Record<string, string> }).scripts ?? {};
        assert.equal(scripts['smoke'], 'tsc -b scripts && node dist/scripts/smoke/cli.js');
        assert.ok(deploySection().includes('npm run smoke -- '), 'docs/deployment.md should show how to run npm run smoke');
    });
});
