// @ts-check
/**
 * azd `preprovision` hook (see azure.yaml): makes sure the Microsoft Entra app registration that App Service
 * Authentication checks tokens against exists, and stores its client id in the azd environment as
 * AUTH_CLIENT_ID, which infra/main.parameters.json passes to infra/main.bicep (authClientId).
 *
 * Why a hook with the Azure CLI and not Bicep: app registrations are Microsoft Graph objects, which Bicep
 * creates only through the Microsoft Graph Bicep extension, fetched from a module registry at compile time;
 * the hook needs nothing but `az`, which docs/deployment.md already requires, and it leaves a template that
 * compiles anywhere. The choice and its alternatives are in docs/deployment.md ("Sign-in with Microsoft Entra").
 *
 *   AUTH_MODE=shared      nothing to do: the app runs without sign-in (the documented opt-out)
 *   AUTH_CLIENT_ID set    used as it is (an existing registration, or the one an earlier run created)
 *   otherwise             finds or creates "mcp-mining-<environment>", configures it, stores its client id
 *
 * The registration: single tenant; identifier URI api://<client id>; one delegated scope, user_impersonation;
 * v2 access tokens; VS Code and the Azure CLI pre-authorized for that scope (PREAUTHORIZED_CLIENTS), so that
 * neither needs a consent prompt; a service principal, without which Entra issues no token for it, that requires
 * an assignment (appRoleAssignmentRequired): only the people the owner assigns get a token, not every member and
 * guest of the tenant. The person running azd is assigned (ASSIGN_DEPLOYER); docs/deployment.md shows how to
 * add another user or a group. No secret and no redirect URI: the app only validates bearer tokens.
 *
 * Plain JavaScript on purpose: it runs straight from the checkout, before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** azd environment values the hook reads and writes; infra/main.parameters.json maps them to parameters. */
export const AUTH_MODE = 'AUTH_MODE';
export const AUTH_CLIENT_ID = 'AUTH_CLIENT_ID';

/** The delegated scope callers ask for: api://<client id>/user_impersonation. */
export const SCOPE_VALUE = 'user_impersonation';

/**
 * Clients that get tokens without a consent prompt. The same ids are the `authClientApps` default of
 * infra/main.bicep (the applications whose tokens the app accepts); a test compares the two lists.
 */
export const PREAUTHORIZED_CLIENTS = Object.freeze([
    // VS Code's Microsoft authentication provider, which its MCP client uses to sign in.
    // https://learn.microsoft.com/azure/app-service/configure-authentication-mcp
    { appId: 'aebc6443-996d-45c2-90f0-388ff96faa56', name: 'Visual Studio Code' },
    // `az account get-access-token`, which the post-deployment smoke check uses.
    { appId: '04b07795-8ddb-461a-bbee-02f9e1bf7b46', name: 'Azure CLI' },
]);

const GRAPH = 'https://graph.microsoft.com/v1.0';
/** The default app role: an assignment without a role of the app's own. */
export const DEFAULT_APP_ROLE = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the hook will do for this environment, decided from the values alone.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ action: 'skip' | 'reuse' | 'ensure', clientId?: string, displayName?: string }}
 */
export function decide(env) {
    const mode = (env[AUTH_MODE] ?? '').trim();
    if (mode !== '' && mode !== 'entra' && mode !== 'shared') {
        throw new Error(`${AUTH_MODE} is ${JSON.stringify(mode)}; use entra (the default) or shared.`);
    }
    if (mode === 'shared') return { action: 'skip' };
    const clientId = (env[AUTH_CLIENT_ID] ?? '').trim();
    if (clientId !== '') {
        if (!GUID.test(clientId)) throw new Error(`${AUTH_CLIENT_ID} is ${JSON.stringify(clientId)}, which is not an application (client) id.`);
        return { action: 'reuse', clientId };
    }
    const environment = (env.AZURE_ENV_NAME ?? '').trim();
    if (environment === '') throw new Error('AZURE_ENV_NAME is not set: run this hook through azd (azd provision or azd up).');
    return { action: 'ensure', displayName: `mcp-mining-${environment}` };
}

/**
 * The `api` property of the registration: one scope (keeping its id if it exists) and the pre-authorized clients.
 * @param {string | undefined} existingScopeId
 */
export function apiSettings(existingScopeId) {
    const scopeId = existingScopeId ?? randomUUID();
    return {
        requestedAccessTokenVersion: 2,
        oauth2PermissionScopes: [
            {
                id: scopeId,
                value: SCOPE_VALUE,
                type: 'User',
                isEnabled: true,
                adminConsentDisplayName: 'Use the MCP mining server',
                adminConsentDescription: 'Lets the app call the MCP mining server as the signed-in user.',
                userConsentDisplayName: 'Use the MCP mining server',
                userConsentDescription: 'Lets the app call the MCP mining server as you.',
            },
        ],
        preAuthorizedApplications: PREAUTHORIZED_CLIENTS.map((client) => ({ appId: client.appId, delegatedPermissionIds: [scopeId] })),
    };
}

/**
 * Runs a command, returns its trimmed stdout, throws with its stderr when it fails.
 * @typedef {(command: string, args: string[]) => string} Run
 * @type {Run}
 */
export function run(command, args) {
    // az and azd are .cmd files on Windows, which only a shell can start.
    const result = spawnSync(command, args, { encoding: 'utf8', shell: process.platform === 'win32' });
    if (result.error) throw new Error(`${command} could not be started (${result.error.message}); install it (see docs/deployment.md, Prerequisites).`);
    if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${(result.stderr || result.stdout).trim()}`);
    return result.stdout.trim();
}

/**
 * PATCHes the application through Microsoft Graph, with the body in a file (no shell quoting of JSON).
 * @param {Run} exec
 * @param {string} objectId
 * @param {unknown} body
 */
function patchApplication(exec, objectId, body) {
    const dir = mkdtempSync(join(tmpdir(), 'entra-app-'));
    try {
        const file = join(dir, 'body.json');
        writeFileSync(file, JSON.stringify(body));
        exec('az', ['rest', '--method', 'PATCH', '--uri', `${GRAPH}/applications/${objectId}`, '--headers', 'Content-Type=application/json', '--body', `@${file}`]);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * Finds or creates the registration, configures it, and returns its client id.
 * @param {string} displayName
 * @param {NodeJS.ProcessEnv} env
 * @param {Run} exec
 * @param {(line: string) => void} log
 */
export function ensureRegistration(displayName, env, exec, log) {
    // The registration must live in the tenant of the subscription the template deploys to, whose
    // tenant().tenantId the app trusts as issuer.
    const cliTenant = exec('az', ['account', 'show', '--query', 'tenantId', '-o', 'tsv']);
    const subscription = (env.AZURE_SUBSCRIPTION_ID ?? '').trim();
    if (subscription !== '') {
        const subscriptionTenant = exec('az', ['account', 'show', '--subscription', subscription, '--query', 'tenantId', '-o', 'tsv']);
        if (subscriptionTenant !== cliTenant) {
            throw new Error(
                `az is signed in to tenant ${cliTenant}, but subscription ${subscription} belongs to tenant ${subscriptionTenant}: ` +
                    `run az login --tenant ${subscriptionTenant} (or az account set --subscription ${subscription}) and try again.`
            );
        }
    }

    const found = JSON.parse(exec('az', ['ad', 'app', 'list', '--display-name', displayName, '--query', '[].{appId:appId,id:id}', '-o', 'json']) || '[]');
    if (!Array.isArray(found)) throw new Error('az ad app list did not answer with a list');
    if (found.length > 1) {
        throw new Error(`${found.length} app registrations are named ${displayName}; choose one with azd env set ${AUTH_CLIENT_ID} <its application id>.`);
    }
    /** @type {{ appId: string, id: string }} */
    let app = found[0];
    if (app) {
        log(`Using the app registration ${displayName} (${app.appId}).`);
    } else {
        log(`Creating the app registration ${displayName} for App Service Authentication.`);
        app = JSON.parse(exec('az', ['ad', 'app', 'create', '--display-name', displayName, '--sign-in-audience', 'AzureADMyOrg', '--query', '{appId:appId,id:id}', '-o', 'json']));
    }

    const scopes = JSON.parse(exec('az', ['ad', 'app', 'show', '--id', app.appId, '--query', 'api.oauth2PermissionScopes', '-o', 'json']) || '[]');
    const existing = Array.isArray(scopes) ? scopes.find((s) => s && s.value === SCOPE_VALUE) : undefined;
    const api = apiSettings(existing?.id);
    // Graph refuses pre-authorizations of a scope it does not know yet, so the scope is saved first.
    patchApplication(exec, app.id, { identifierUris: [`api://${app.appId}`], api: { ...api, preAuthorizedApplications: [] } });
    patchApplication(exec, app.id, { api });

    let spId;
    try {
        spId = exec('az', ['ad', 'sp', 'show', '--id', app.appId, '--query', 'id', '-o', 'tsv']);
    } catch {
        spId = exec('az', ['ad', 'sp', 'create', '--id', app.appId, '--query', 'id', '-o', 'tsv']);
    }
    // Only assigned users and groups get a token for the app: not every member and guest of the tenant.
    exec('az', ['ad', 'sp', 'update', '--id', spId, '--set', 'appRoleAssignmentRequired=true']);
    assignDeployer(spId, env, exec, log);
    return app.appId;
}

/**
 * Assigns the person running azd to the app (the default role), unless they already are; a service principal
 * running azd in CI is not a person who signs in, and is left out.
 * @param {string} spId the service principal's object id
 * @param {NodeJS.ProcessEnv} env
 * @param {Run} exec
 * @param {(line: string) => void} log
 */
export function assignDeployer(spId, env, exec, log) {
    if ((env.AZURE_PRINCIPAL_TYPE ?? '').trim() === 'ServicePrincipal') {
        log('azd runs as a service principal: no user is assigned to the app; assign users or a group (docs/deployment.md).');
        return;
    }
    const userId = exec('az', ['ad', 'signed-in-user', 'show', '--query', 'id', '-o', 'tsv']);
    const assigned = JSON.parse(
        exec('az', ['rest', '--method', 'GET', '--uri', `${GRAPH}/servicePrincipals/${spId}/appRoleAssignedTo?$filter=principalId eq ${userId}`, '--query', 'value', '-o', 'json']) || '[]'
    );
    if (Array.isArray(assigned) && assigned.length > 0) {
        log('You are assigned to the app already.');
        return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'entra-app-'));
    try {
        const file = join(dir, 'assignment.json');
        writeFileSync(file, JSON.stringify({ principalId: userId, resourceId: spId, appRoleId: DEFAULT_APP_ROLE }));
        exec('az', ['rest', '--method', 'POST', '--uri', `${GRAPH}/servicePrincipals/${spId}/appRoleAssignedTo`, '--headers', 'Content-Type=application/json', '--body', `@${file}`]);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
    log('Assigned you to the app: only assigned users and groups can sign in to it (docs/deployment.md shows how to add others).');
}

/**
 * The hook: decide, act, and store the client id in the azd environment.
 * @param {NodeJS.ProcessEnv} env
 * @param {Run} exec
 * @param {(line: string) => void} log
 * @returns {string} the client id the deployment will use ('' in shared mode)
 */
export function main(env, exec = run, log = console.log) {
    const decision = decide(env);
    if (decision.action === 'skip') {
        log(`${AUTH_MODE}=shared: no sign-in; everyone with the function key is one tenant (docs/security.md).`);
        return '';
    }
    if (decision.action === 'reuse') {
        log(`Using the app registration ${decision.clientId} from ${AUTH_CLIENT_ID}.`);
        return decision.clientId ?? '';
    }
    const clientId = ensureRegistration(decision.displayName ?? '', env, exec, log);
    exec('azd', ['env', 'set', AUTH_CLIENT_ID, clientId]);
    log(`Stored ${AUTH_CLIENT_ID}=${clientId} in the azd environment.`);
    return clientId;
}

// Run as a script (the azd hook), not when a test imports the helpers above.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    try {
        main(process.env);
    } catch (error) {
        console.error(error instanceof Error ? error.message : error);
        console.error(
            `To deploy without creating an app registration: azd env set ${AUTH_CLIENT_ID} <an existing application id>, ` +
                `or opt out of sign-in with azd env set ${AUTH_MODE} shared (docs/deployment.md).`
        );
        process.exit(1);
    }
}
