/**
 * The README's "Deploy to Azure" section exists, comes last, and covers what a user needs from a fresh
 * subscription to a working Copilot connection and back to nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEPLOY_HEADING, deploySection, readRepoFile } from './bicep';

describe('README "Deploy to Azure"', () => {
    it('is the last section of the README', () => {
        const headings = readRepoFile('README.md')
            .split(/\r?\n/)
            .filter((line) => /^## /.test(line));
        assert.equal(headings[headings.length - 1]?.trim(), DEPLOY_HEADING, `README.md should end with the "${DEPLOY_HEADING}" section`);
    });

    it('covers provisioning, keys, the Copilot connection, local runs, costs and clean-up', () => {
        const section = deploySection();
        const needed = ['azd auth login', 'azd up', 'functionKeys.default', 'x-functions-key', '.vscode/mcp.json', 'func start', 'Azurite', 'azd down --purge', 'Durable Task Data Contributor'];
        const missing = needed.filter((text) => !section.includes(text));
        assert.deepEqual(missing, [], `README "${DEPLOY_HEADING}" does not mention ${missing.join(', ')}`);
    });
});
