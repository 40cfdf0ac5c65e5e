/**
 * Role assignments: every role definition id in the Bicep is the built-in role named beside it, and the
 * identity and the deploying user get the roles issue 4 asks for, on the right resources.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { entry, loadDeployment, moduleFile, readRepoFile, repoRoot, resourcesOfType, type Statement } from './bicep';

/**
 * Built-in Azure roles by exact name (from Microsoft's built-in roles reference,
 * ../shared/reference/azure-deploy-and-peers.md §2.2). Add a row before using a new role.
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

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function bicepFiles(dir = 'infra'): string[] {
    return readdirSync(join(repoRoot(), dir), { withFileTypes: true }).flatMap((item) =>
        item.isDirectory() ? bicepFiles(`${dir}/${item.name}`) : item.name.endsWith('.bicep') ? [`${dir}/${item.name}`] : []
    );
}

describe('role definition ids', () => {
    it('each match the built-in role named in the comment beside them', () => {
        const problems: string[] = [];
        let seen = 0;
        for (const file of bicepFiles()) {
            readRepoFile(file)
                .split(/\r?\n/)
                .forEach((line, index) => {
                    for (const guid of line.match(GUID) ?? []) {
                        seen++;
                        const at = `${file}:${index + 1}`;
                        const named = /\/\/\s*(.+?)\s*$/.exec(line)?.[1];
                        const expected = named === undefined ? undefined : BUILT_IN_ROLES.get(named);
                        if (named === undefined) problems.push(`${at}: ${guid} has no "// <role name>" comment beside it`);
                        else if (expected === undefined) problems.push(`${at}: "${named}" is not a built-in role this test knows (add it to BUILT_IN_ROLES)`);
                        else if (expected !== guid.toLowerCase()) problems.push(`${at}: ${guid} is named "${named}", whose id is ${expected}`);
                    }
                });
        }
        assert.ok(seen > 0, 'no role definition ids found under infra/');
        assert.deepEqual(problems, [], problems.join('\n'));
    });
});

describe('role assignments', () => {
    const deployment = loadDeployment();
    const rolesFile = moduleFile(deployment, 'app/role-assignments.bicep');
    const assignments = resourcesOfType(rolesFile, 'Microsoft.Authorization/roleAssignments');

    /** The role ids map (`var roleIds = { key: 'guid' // Name }`) read as key -> role name. */
    const roleNames = new Map<string, string>();
    for (const match of rolesFile.code.matchAll(/^\s*(\w+):\s*'([0-9a-f-]{36})'/gim)) {
        const name = [...BUILT_IN_ROLES].find(([, id]) => id === match[2]?.toLowerCase())?.[0];
        if (match[1] && name) roleNames.set(match[1], name);
    }

    /** Which role names an assignment grants: a `roleIds.x` inside it, or the storage list it loops over. */
    function granted(assignment: Statement): string[] {
        const ids = [...assignment.value.matchAll(/roleIds\.(\w+)/g)].map((m) => m[1] ?? '');
        const loop = /^\[\s*for\s+\w+\s+in\s+(\w+)\s*:/.exec(assignment.value);
        if (loop) {
            const list = rolesFile.statements.find((s) => s.keyword === 'var' && s.name === loop[1]);
            ids.push(...[...(list?.value ?? '').matchAll(/roleIds\.(\w+)/g)].map((m) => m[1] ?? ''));
        }
        return ids.map((id) => roleNames.get(id) ?? `unknown roleIds.${id}`);
    }

    function propertiesOf(assignment: Statement): string {
        const body = assignment.value.replace(/^\[\s*for\s[^:]+:\s*/, '').replace(/\]\s*$/, '');
        return entry(body, 'properties', `${rolesFile.path} ${assignment.name}`) ?? '';
    }

    function assertGrant(role: string, principal: string, scope: string): void {
        const match = assignments.find(
            (a) =>
                granted(a).includes(role) &&
                entry(propertiesOf(a), 'principalId', rolesFile.path) === principal &&
                new RegExp(`\\bscope:\\s*${scope}\\b`).test(a.value)
        );
        assert.ok(match, `${rolesFile.path} does not grant "${role}" to ${principal} on ${scope}`);
    }

    it('give the app identity data access to storage, telemetry and the scheduler', () => {
        assertGrant('Storage Blob Data Owner', 'identityPrincipalId', 'storage');
        assertGrant('Storage Queue Data Contributor', 'identityPrincipalId', 'storage');
        assertGrant('Storage Table Data Contributor', 'identityPrincipalId', 'storage');
        assertGrant('Monitoring Metrics Publisher', 'identityPrincipalId', 'appInsights');
        assertGrant('Durable Task Data Contributor', 'identityPrincipalId', 'scheduler');
    });

    it('give the deploying user the scheduler role, so the DTS dashboard works for them', () => {
        assertGrant('Durable Task Data Contributor', 'userPrincipalId', 'scheduler');
    });

    it('refer to role definitions at subscription scope, where built-in roles live', () => {
        for (const assignment of assignments) {
            const roleDefinitionId = entry(propertiesOf(assignment), 'roleDefinitionId', rolesFile.path) ?? '';
            assert.match(
                roleDefinitionId,
                /^subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions',\s*roleIds\.\w+\)$|^subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions',\s*roleId\)$/,
                `${rolesFile.path} ${assignment.name}: roleDefinitionId should be subscriptionResourceId('Microsoft.Authorization/roleDefinitions', <id from roleIds>)`
            );
            const principalType = entry(propertiesOf(assignment), 'principalType', rolesFile.path);
            assert.ok(principalType, `${rolesFile.path} ${assignment.name}: set principalType, or new identities can fail replication checks`);
        }
    });
});
