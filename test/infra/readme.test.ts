/**
 * The README's "Deploy to Azure" section exists and covers what a user needs from a fresh
 * subscription to a working Copilot connection and back to nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEPLOY_HEADING, deploySection } from './files';

describe('README "Deploy to Azure"', () => {
    it('covers provisioning, keys, the Copilot connection, local runs, costs and clean-up', () => {
        const section = deploySection();
        const needed = ['azd auth login', 'azd up', 'functionKeys.default', 'x-functions-key', '.vscode/mcp.json', 'func start', 'Azurite', 'azd down --purge', 'Durable Task Data Contributor'];
        const missing = needed.filter((text) => !section.includes(text));
        assert.deepEqual(missing, [], `README "${DEPLOY_HEADING}" does not mention ${missing.join(', ')}`);
    });
});
