/**
 * The deployment guide (docs/deployment.md, "Deploy to Azure") exists and covers what a user needs from a fresh
 * subscription to a working Copilot connection and back to nothing, including the tool versions
 * below which a deployment or `func start` fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEPLOY_DOC, deploySection, getPathInsensitive, parseSimpleYaml, readRepoFile } from '../infra/files';

describe('docs/deployment.md "Deploy to Azure"', () => {
    it('covers provisioning, keys, the Copilot connection, local runs, costs and clean-up', () => {
        const section = deploySection();
        const needed = ['azd auth login', 'azd up', 'functionKeys.default', 'x-functions-key', '.vscode/mcp.json', 'func start', 'Azurite', 'azd down --purge', 'Durable Task Data Contributor'];
        const missing = needed.filter((text) => !section.includes(text));
        assert.deepEqual(missing, [], `${DEPLOY_DOC} does not mention ${missing.join(', ')}`);
    });

    it('states the minimum Core Tools, Functions host, azd and Node versions, and why', () => {
        const section = deploySection();
        const required = String(getPathInsensitive(parseSimpleYaml(readRepoFile('azure.yaml'), 'azure.yaml'), ['requiredVersions', 'azd']) ?? '');
        const azd = /(\d+\.\d+\.\d+)/.exec(required)?.[1] ?? '(none in azure.yaml)';
        const needed: [string, string][] = [
            [`azd\`) **${azd} or later**`, `the azd version azure.yaml requires (${azd})`],
            ['node_modules', 'why azd must be that recent (it keeps node_modules)'],
            ['**4.0.5530 or later**', 'the Core Tools release that brings host 4.28'],
            ['host **4.28**', 'the Functions host version HTTP streaming needs'],
            ['enableHttpStream', 'why the host must be 4.28 (HTTP streaming)'],
            ['**Node.js 22**', 'the Node version Azure runs and func start should use'],
            ['Node.js 20 or later', 'the Node version the build and tests need'],
        ];
        const missing = needed.filter(([text]) => !section.includes(text)).map(([, what]) => what);
        assert.deepEqual(missing, [], `${DEPLOY_DOC} does not state ${missing.join('; ')}`);
    });
});
