/**
 * The preprovision hook (infra/hooks/entra-app.mjs) that gives App Service Authentication its app
 * registration. Azure is not reachable here, so its `az`/`azd` commands are recorded and answered by a
 * scripted tenant; what is held is what it asks Entra for (the registration that VS Code and the Azure CLI
 * can get tokens for) and when it asks nothing at all.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './files';

type Run = (command: string, args: string[]) => string;

interface EntraHook {
    AUTH_CLIENT_ID: string;
    SCOPE_VALUE: string;
    PREAUTHORIZED_CLIENTS: readonly { appId: string }[];
    decide(env: NodeJS.ProcessEnv): { action: string; clientId?: string; displayName?: string };
    main(env: NodeJS.ProcessEnv, exec: Run, log: (line: string) => void): string;
    DEFAULT_APP_ROLE: string;
}

const hook = async (): Promise<EntraHook> => (await import(pathToFileURL(join(repoRoot(), 'infra/hooks/entra-app.mjs')).href)) as EntraHook;

const TENANT = '72f988bf-0000-0000-0000-000000000001';
const APP = { appId: '9d3c0b7e-1111-4222-8333-944455556666', id: 'a0a0a0a0-1111-4222-8333-944455556666' };

/** A tenant with no registration of that name yet (or `existing`), and a record of every command. */
function scriptedTenant(options: { existing?: number; subscriptionTenant?: string; hasServicePrincipal?: boolean; assigned?: boolean } = {}) {
    const calls: string[][] = [];
    const patches: unknown[] = [];
    const assignments: unknown[] = [];
    const exec: Run = (command, args) => {
        calls.push([command, ...args]);
        const line = args.join(' ');
        if (command === 'azd') return '';
        if (line.startsWith('account show --subscription')) return options.subscriptionTenant ?? TENANT;
        if (line.startsWith('account show')) return TENANT;
        if (line.startsWith('ad app list')) return JSON.stringify(Array.from({ length: options.existing ?? 0 }, () => APP));
        if (line.startsWith('ad app create')) return JSON.stringify(APP);
        if (line.startsWith('ad app show')) return '[]';
        if (line.startsWith('rest --method PATCH')) {
            const body = args[args.indexOf('--body') + 1] ?? '';
            patches.push(JSON.parse(readFileSync(body.slice(1), 'utf8')));
            return '';
        }
        if (line.startsWith('ad sp show')) {
            if (options.hasServicePrincipal) return 'sp';
            throw new Error('not found');
        }
        if (line.startsWith('ad sp create')) return 'sp';
        if (line.startsWith('ad sp update')) return '';
        if (line.startsWith('ad signed-in-user show')) return USER;
        if (line.startsWith('rest --method GET') && line.includes('/appRoleAssignedTo')) return options.assigned ? '[{"id":"x"}]' : '[]';
        if (line.startsWith('rest --method POST') && line.includes('/appRoleAssignedTo')) {
            const body = args[args.indexOf('--body') + 1] ?? '';
            assignments.push(JSON.parse(readFileSync(body.slice(1), 'utf8')));
            return '';
        }
        throw new Error(`unexpected command: ${command} ${line}`);
    };
    return { exec, calls, patches, assignments };
}

const ENV = { AZURE_ENV_NAME: 'mining-dev', AZURE_SUBSCRIPTION_ID: 'sub-1' };
const USER = 'c0ffee00-1111-4222-8333-944455556666';

describe('infra/hooks/entra-app.mjs', () => {
    it('asks nothing of Azure in shared mode or when AUTH_CLIENT_ID is already set', async () => {
        const { main } = await hook();
        for (const env of [{ ...ENV, AUTH_MODE: 'shared' }, { ...ENV, AUTH_CLIENT_ID: APP.appId }]) {
            const tenant = scriptedTenant();
            main(env, tenant.exec, () => {});
            assert.deepEqual(tenant.calls, [], `${JSON.stringify(env)} should run no command`);
        }
    });

    it('refuses an unknown AUTH_MODE and an AUTH_CLIENT_ID that is not a client id', async () => {
        const { decide } = await hook();
        assert.throws(() => decide({ ...ENV, AUTH_MODE: 'anonymous' }), /entra \(the default\) or shared/);
        assert.throws(() => decide({ ...ENV, AUTH_CLIENT_ID: 'my-app' }), /not an application \(client\) id/);
    });

    it('creates a single-tenant registration with the scope, v2 tokens and the pre-authorized clients, then stores its id', async () => {
        const { main, SCOPE_VALUE, PREAUTHORIZED_CLIENTS, AUTH_CLIENT_ID } = await hook();
        const tenant = scriptedTenant();
        assert.equal(main(ENV, tenant.exec, () => {}), APP.appId);

        const create = tenant.calls.find((c) => c.slice(0, 4).join(' ') === 'az ad app create');
        assert.ok(create, 'it should create the registration');
        assert.equal(create[create.indexOf('--display-name') + 1], 'mcp-mining-mining-dev');
        assert.equal(create[create.indexOf('--sign-in-audience') + 1], 'AzureADMyOrg', 'single tenant: the app trusts its own tenant only');

        const last = tenant.patches.at(-1) as { api: { requestedAccessTokenVersion: number; oauth2PermissionScopes: { id: string; value: string }[]; preAuthorizedApplications: { appId: string; delegatedPermissionIds: string[] }[] } };
        const first = tenant.patches[0] as { identifierUris: string[] };
        assert.deepEqual(first.identifierUris, [`api://${APP.appId}`], 'the identifier URI must be api://<client id>, the audience the app accepts');
        assert.equal(last.api.requestedAccessTokenVersion, 2);
        const [scope] = last.api.oauth2PermissionScopes;
        assert.equal(scope?.value, SCOPE_VALUE);
        assert.deepEqual(
            last.api.preAuthorizedApplications,
            PREAUTHORIZED_CLIENTS.map((c) => ({ appId: c.appId, delegatedPermissionIds: [scope?.id] })),
            'every pre-authorized client must be granted the scope'
        );
        assert.ok(tenant.calls.some((c) => c.slice(0, 4).join(' ') === 'az ad sp create'), 'without a service principal Entra issues no token for the app');
        assert.deepEqual(tenant.calls.at(-1), ['azd', 'env', 'set', AUTH_CLIENT_ID, APP.appId], 'the client id must be stored last, once the registration is complete');
    });

    it('reuses the registration of an earlier, interrupted run instead of creating a second', async () => {
        const { main } = await hook();
        const tenant = scriptedTenant({ existing: 1, hasServicePrincipal: true });
        assert.equal(main(ENV, tenant.exec, () => {}), APP.appId);
        assert.ok(!tenant.calls.some((c) => c[3] === 'create'), 'nothing should be created');
    });

    it('stops with what to do when the registration would land in another tenant, or its name is ambiguous', async () => {
        const { main } = await hook();
        assert.throws(() => main(ENV, scriptedTenant({ subscriptionTenant: 'other-tenant' }).exec, () => {}), /az login --tenant other-tenant/);
        assert.throws(() => main(ENV, scriptedTenant({ existing: 2 }).exec, () => {}), /azd env set AUTH_CLIENT_ID/);
    });

    it('requires an assignment to get a token, and assigns the person running azd, once', async () => {
        const { main, DEFAULT_APP_ROLE } = await hook();
        const tenant = scriptedTenant();
        main(ENV, tenant.exec, () => {});
        const update = tenant.calls.find((c) => c.slice(0, 4).join(' ') === 'az ad sp update');
        assert.ok(update?.includes('appRoleAssignmentRequired=true'), 'the service principal must require an assignment: else every member and guest of the tenant gets a token');
        assert.deepEqual(tenant.assignments, [{ principalId: USER, resourceId: 'sp', appRoleId: DEFAULT_APP_ROLE }]);
        // Run again (azd provision once more): already assigned, nothing posted.
        const again = scriptedTenant({ hasServicePrincipal: true, assigned: true, existing: 1 });
        main(ENV, again.exec, () => {});
        assert.deepEqual(again.assignments, []);
        // azd in CI as a service principal: no user to assign.
        const ci = scriptedTenant();
        main({ ...ENV, AZURE_PRINCIPAL_TYPE: 'ServicePrincipal' }, ci.exec, () => {});
        assert.deepEqual(ci.assignments, []);
        assert.ok(!ci.calls.some((c) => c.includes('signed-in-user')));
    });
});
