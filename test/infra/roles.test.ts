/**
 * Role assignments: every role definition id in the Bicep is the built-in role named beside it, and the
 * compiled template grants the identity and the deploying user the roles they need, on the right resources.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { at, deployed, resourceIdOf, Runtime, type Deployment, type Resource, type Value } from '@mcp-mining/testkit/arm';
import { readRepoFile, repoRoot } from './files';
import { bicepSkip, deployment, only } from './template';

/**
 * Built-in Azure roles by exact name (from Microsoft's built-in roles reference). Add a row before using
 * a new role.
 */
const BUILT_IN_ROLES: ReadonlyMap<string, string> = new Map([
    ['Storage Blob Data Owner', 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'],
    ['Storage Blob Data Contributor', 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'],
    ['Storage Queue Data Contributor', '974c5e8b-45b9-4653-ba55-5f855dd0fb88'],
    ['Storage Queue Data Message Processor', '8a0f0c08-91a1-4084-bc3d-661d67233fed'],
    ['Storage Queue Data Reader', '19e7f393-937e-4f77-808e-94535e297925'],
    ['Storage Table Data Contributor', '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'],
    ['Monitoring Metrics Publisher', '3913510d-42f4-4e42-8a64-420c390055eb'],
    ['Durable Task Data Contributor', '0ad04412-c4d5-4796-b79c-f76d14c8d402'],
    ['Durable Task Worker', '80d0d6b0-f522-40a4-8886-a5a11720c375'],
    ['Durable Task Data Reader', 'd6a5505f-6ebb-45a4-896e-ac8274cfc0ac'],
]);

/**
 * Microsoft's first-party client applications the Bicep names (App Service Authentication's allowed
 * applications), by the name Entra shows for them. The same check holds them: a wrong id beside the right
 * name would lock that client out.
 */
const CLIENT_APPLICATIONS: ReadonlyMap<string, string> = new Map([
    ['Visual Studio Code', 'aebc6443-996d-45c2-90f0-388ff96faa56'],
    ['Azure CLI', '04b07795-8ddb-461a-bbee-02f9e1bf7b46'],
]);

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function bicepFiles(dir = 'infra'): string[] {
    return readdirSync(join(repoRoot(), dir), { withFileTypes: true }).flatMap((item) =>
        item.isDirectory() ? bicepFiles(`${dir}/${item.name}`) : item.name.endsWith('.bicep') ? [`${dir}/${item.name}`] : []
    );
}

// Comments do not survive compilation, so this one reads the sources: a wrong id beside the right name
// would compile, deploy, and grant the wrong role.
describe('role definition ids in the Bicep sources', () => {
    it('each match the built-in role named in the comment beside them', () => {
        const problems: string[] = [];
        let seen = 0;
        for (const file of bicepFiles()) {
            readRepoFile(file)
                .split(/\r?\n/)
                .forEach((line, index) => {
                    for (const guid of line.match(GUID) ?? []) {
                        seen++;
                        const where = `${file}:${index + 1}`;
                        const named = /\/\/\s*(.+?)\s*$/.exec(line)?.[1];
                        const expected = named === undefined ? undefined : (BUILT_IN_ROLES.get(named) ?? CLIENT_APPLICATIONS.get(named));
                        if (named === undefined) problems.push(`${where}: ${guid} has no "// <role name>" comment beside it`);
                        else if (expected === undefined) problems.push(`${where}: "${named}" is not a built-in role or client application this test knows (add it to BUILT_IN_ROLES or CLIENT_APPLICATIONS)`);
                        else if (expected !== guid.toLowerCase()) problems.push(`${where}: ${guid} is named "${named}", whose id is ${expected}`);
                    }
                });
        }
        assert.ok(seen > 0, 'no role definition ids found under infra/');
        assert.deepEqual(problems, [], problems.join('\n'));
    });
});

const ROLE_DEFINITION = /^subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions', '([0-9a-f-]{36})'\)$/i;

interface Grant {
    role: string;
    principal: Value | undefined;
    scope: Value | undefined;
    condition: Value;
    assignment: Resource;
}

function grants(root: Deployment): Grant[] {
    return deployed(root, 'Microsoft.Authorization/roleAssignments').map((assignment) => {
        const definition = at(assignment.body['properties'], ['roleDefinitionId']);
        const id = definition instanceof Runtime ? ROLE_DEFINITION.exec(definition.text)?.[1]?.toLowerCase() : undefined;
        const role = [...BUILT_IN_ROLES].find(([, roleId]) => roleId === id)?.[0] ?? `unknown role ${definition instanceof Runtime ? definition.text : JSON.stringify(definition)}`;
        return { role, principal: at(assignment.body['properties'], ['principalId']), scope: assignment.body['scope'], condition: assignment.condition, assignment };
    });
}

function describeValue(value: Value | undefined): string {
    return value instanceof Runtime ? value.text : JSON.stringify(value);
}

describe('role assignments (compiled)', { skip: bicepSkip }, () => {
    const root = (): Deployment => deployment();
    const identity = (): Resource => only(deployed(root(), 'Microsoft.ManagedIdentity/userAssignedIdentities'), 'user-assigned identity');
    const identityPrincipal = (): Runtime => new Runtime(`reference(${identity().type}/${String(identity().name)}).principalId`);
    const scopeOf = (type: string): Runtime => resourceIdOf(only(deployed(root(), type), type));

    function assertGrant(role: string, principal: Value, scope: Runtime, who: string): void {
        const all = grants(root());
        const match = all.find((g) => g.role === role && JSON.stringify(g.principal) === JSON.stringify(principal) && g.scope instanceof Runtime && g.scope.text === scope.text);
        assert.ok(
            match,
            `the template does not grant "${role}" to ${who} on ${scope.text}; it grants:\n${all.map((g) => `  ${g.role} to ${describeValue(g.principal)} on ${describeValue(g.scope)}`).join('\n')}`
        );
    }

    it('give the app identity data access to storage, telemetry and the scheduler', () => {
        const who = `the app identity (${String(identity().name)})`;
        assertGrant('Storage Blob Data Owner', identityPrincipal(), scopeOf('Microsoft.Storage/storageAccounts'), who);
        assertGrant('Storage Queue Data Contributor', identityPrincipal(), scopeOf('Microsoft.Storage/storageAccounts'), who);
        assertGrant('Storage Table Data Contributor', identityPrincipal(), scopeOf('Microsoft.Storage/storageAccounts'), who);
        assertGrant('Monitoring Metrics Publisher', identityPrincipal(), scopeOf('Microsoft.Insights/components'), who);
        assertGrant('Durable Task Data Contributor', identityPrincipal(), scopeOf('Microsoft.DurableTask/schedulers'), who);
    });

    it('give the deploying user the scheduler role, so the DTS dashboard works for them', () => {
        // principalId defaults to deployer().objectId: whoever runs azd.
        assertGrant('Durable Task Data Contributor', new Runtime('deployer().objectId'), scopeOf('Microsoft.DurableTask/schedulers'), 'the deploying user');
        const forUser = (principalId: string): Grant[] =>
            grants(deployment({ principalId })).filter((g) => g.principal === principalId && g.condition === true);
        assert.equal(forUser('00000000-0000-0000-0000-0000000000aa').length, 1, 'an explicit principalId should get exactly one role assignment');
        const skipped = grants(deployment({ principalId: '' })).filter((g) => g.principal === '' && g.condition !== false);
        assert.deepEqual(skipped, [], 'an empty principalId must skip the user role assignment (its condition should be false)');
    });

    it('refer to built-in role definitions at subscription scope, with a principal type', () => {
        for (const grant of grants(root())) {
            assert.ok(!grant.role.startsWith('unknown'), `${String(grant.assignment.name)}: ${grant.role}; roleDefinitionId should be subscriptionResourceId('Microsoft.Authorization/roleDefinitions', <a built-in role id>)`);
            const principalType = at(grant.assignment.body['properties'], ['principalType']);
            assert.ok(principalType, `${String(grant.assignment.name)}: set principalType, or new identities can fail replication checks`);
        }
    });

    it('grant nothing twice (the assignment names are unique)', () => {
        const names = grants(root()).map((g) => describeValue(g.assignment.name));
        assert.equal(new Set(names).size, names.length, `role assignment names repeat:\n${names.join('\n')}`);
    });
});
