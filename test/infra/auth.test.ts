/**
 * Who may call a deployed app: `azd up` turns on App Service Authentication with Microsoft Entra by default
 * (unauthenticated requests get 401), the anonymous `shared` mode is an explicit parameter, and what the app's
 * tenant code reads (src/mcp/http/caller.ts) is what the platform sets. Held against the compiled template,
 * azure.yaml, the parameters file and the preprovision hook that creates the app registration.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { callerTenant, isPlatformAuthEnabled } from '../../src/mcp/http/caller';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { at, deployed, Runtime, TemplateFailure, type Deployment, type Resource, type Value } from '@mcp-mining/testkit/arm';
import { deploySection, getPathInsensitive, isRecord, parseSimpleYaml, readJson, readRepoFile, repoRoot } from './files';
import { appSettingsOf, bicepSkip, deployment, only, TEST_AUTH_CLIENT_ID } from './template';

interface EntraHook {
    AUTH_MODE: string;
    AUTH_CLIENT_ID: string;
    SCOPE_VALUE: string;
    PREAUTHORIZED_CLIENTS: readonly { appId: string; name: string }[];
}

async function loadHook(): Promise<EntraHook> {
    return (await import(pathToFileURL(join(repoRoot(), 'infra/hooks/entra-app.mjs')).href)) as EntraHook;
}

function authSettings(from: Deployment): Resource {
    const configs = deployed(from, 'Microsoft.Web/sites/config').filter((r) => String(r.name).endsWith('/authsettingsV2'));
    return only(configs, 'Microsoft.Web/sites/config authsettingsV2');
}

const auth = (from: Deployment, path: readonly string[]): Value | undefined => at(authSettings(from).body['properties'], path);
const AAD = ['identityProviders', 'azureActiveDirectory'];

describe('App Service Authentication (compiled)', { skip: bicepSkip }, () => {
    it('is on by default: Entra sign-in required, 401 for a request without a valid token', () => {
        const root = deployment();
        const site = only(deployed(root, 'Microsoft.Web/sites'), 'function app');
        assert.ok(String(authSettings(root).name).startsWith(`${String(site.name)}/`), 'authsettingsV2 must belong to the function app');
        assert.equal(auth(root, ['platform', 'enabled']), true, 'authsettingsV2 platform.enabled must be true by default');
        assert.equal(auth(root, ['globalValidation', 'requireAuthentication']), true, 'requireAuthentication must be true: with anonymous requests let through, they would all be the shared tenant');
        assert.equal(auth(root, ['globalValidation', 'unauthenticatedClientAction']), 'Return401', 'an API must answer 401, not redirect to a sign-in page');
        assert.equal(auth(root, [...AAD, 'enabled']), true, 'the Entra provider must be enabled');
    });

    it('trusts tokens of the deployment\'s tenant issued for the app registration in AUTH_CLIENT_ID', () => {
        const root = deployment();
        assert.equal(auth(root, [...AAD, 'registration', 'clientId']), TEST_AUTH_CLIENT_ID, 'registration.clientId must be the authClientId parameter');
        assert.equal(
            auth(root, [...AAD, 'registration', 'openIdIssuer']),
            `${String(new Runtime('environment().authentication.loginEndpoint'))}${String(new Runtime('tenant().tenantId'))}/v2.0`,
            'the issuer must be the v2 endpoint of the deployment\'s own tenant'
        );
        assert.equal(auth(root, [...AAD, 'registration', 'clientSecretSettingName']), undefined, 'no client secret: the app only validates bearer tokens');
        const audiences = auth(root, [...AAD, 'validation', 'allowedAudiences']);
        assert.ok(Array.isArray(audiences) && audiences.includes(`api://${TEST_AUTH_CLIENT_ID}`), `allowedAudiences must include api://<client id>, got ${JSON.stringify(audiences)}`);
    });

    it('accepts tokens of exactly the clients the hook pre-authorizes (VS Code, Azure CLI)', async () => {
        const hook = await loadHook();
        const allowed = auth(deployment(), [...AAD, 'validation', 'defaultAuthorizationPolicy', 'allowedApplications']);
        assert.deepEqual(allowed, hook.PREAUTHORIZED_CLIENTS.map((c) => c.appId), 'allowedApplications must be the PREAUTHORIZED_CLIENTS of infra/hooks/entra-app.mjs');
        assert.ok(hook.PREAUTHORIZED_CLIENTS.some((c) => c.appId === 'aebc6443-996d-45c2-90f0-388ff96faa56'), 'VS Code must be pre-authorized, or Copilot cannot sign in without consent');
    });

    it('publishes the protected resource metadata MCP clients discover Entra by, for the hook\'s scope', async () => {
        const hook = await loadHook();
        const scope = `api://${TEST_AUTH_CLIENT_ID}/${hook.SCOPE_VALUE}`;
        const settings = appSettingsOf();
        assert.equal(settings['WEBSITE_AUTH_PRM_DEFAULT_WITH_SCOPES'], scope, 'WEBSITE_AUTH_PRM_DEFAULT_WITH_SCOPES must name api://<client id>/<the hook\'s scope>');
        assert.deepEqual(settings['WEBSITE_AUTH_AAD_ALLOWED_TENANTS'], new Runtime('tenant().tenantId'), 'tokens of the deployment\'s tenant only');
        assert.equal(deployment().outputs['MCP_AUTH_SCOPE'], scope, 'the MCP_AUTH_SCOPE output (the smoke check asks az for it) must be the same scope');
        assert.equal(deployment().outputs['AUTH_MODE'], 'entra');
        assert.equal(deployment().outputs['AUTH_CLIENT_ID'], TEST_AUTH_CLIENT_ID, 'AUTH_CLIENT_ID output: what the hook stored, so azd keeps it');
    });

    it('never sets WEBSITE_AUTH_ENABLED itself: the platform injects it, and set by hand it would make forgeable headers trusted', () => {
        for (const authMode of ['entra', 'shared']) {
            const names = Object.keys(appSettingsOf({ authMode })).map((n) => n.toLowerCase());
            assert.ok(!names.includes('website_auth_enabled'), `authMode ${authMode}: the app settings must not set WEBSITE_AUTH_ENABLED`);
        }
    });

    it('refuses to deploy Entra mode without an app registration, naming the way out', () => {
        assert.throws(() => deployment({ authClientId: '' }), (error: unknown) => error instanceof TemplateFailure && /AUTH_MODE shared/.test(error.message) && /AUTH_CLIENT_ID/.test(error.message));
    });

    it('turns sign-in off only when asked: authMode shared', () => {
        const shared = deployment({ authMode: 'shared', authClientId: '' });
        assert.equal(auth(shared, ['platform', 'enabled']), false, 'shared mode must turn a previous Entra configuration off (platform.enabled false)');
        assert.equal(auth(shared, ['globalValidation', 'requireAuthentication']), false);
        assert.equal(appSettingsOf({ authMode: 'shared', authClientId: '' })['WEBSITE_AUTH_PRM_DEFAULT_WITH_SCOPES'], undefined, 'no protected resource metadata without sign-in');
        assert.equal(shared.outputs['MCP_AUTH_SCOPE'], '');
        assert.throws(() => deployment({ authMode: 'anonymous' }), /not among its allowed values/);
    });

    it('needs no function key with Entra sign-in, where a valid token is enough, and keeps it in shared mode', () => {
        assert.equal(appSettingsOf()['MCP_FUNCTION_KEY_REQUIRED'], 'false');
        assert.equal(appSettingsOf({ authMode: 'shared', authClientId: '' })['MCP_FUNCTION_KEY_REQUIRED'], 'true');
    });
});

describe('the tenant code and what App Service Authentication sets', () => {
    // https://learn.microsoft.com/azure/app-service/reference-app-settings#authentication--authorization:
    // WEBSITE_AUTH_ENABLED is "injected into a Windows or Linux app to indicate whether App Service
    // authentication is enabled", with the value True.
    it('reads the platform\'s WEBSITE_AUTH_ENABLED=True as on, and its absence as off', () => {
        assert.equal(isPlatformAuthEnabled({ WEBSITE_AUTH_ENABLED: 'True' }), true);
        assert.equal(isPlatformAuthEnabled({}), false);
        assert.equal(isPlatformAuthEnabled({ WEBSITE_AUTH_ENABLED: 'False' }), false);
    });

    // https://learn.microsoft.com/azure/app-service/configure-authentication-user-identities: the platform
    // passes X-MS-CLIENT-PRINCIPAL-ID and X-MS-CLIENT-PRINCIPAL-IDP (for Entra, "aad") and strips any a client sent.
    it('tells callers apart by the principal headers the platform sets, as it spells them', () => {
        const as = (id: string) => callerTenant(new Headers({ 'X-MS-CLIENT-PRINCIPAL-ID': id, 'X-MS-CLIENT-PRINCIPAL-IDP': 'aad' }), true);
        const alice = as('00000000-0000-0000-0000-00000000a11c');
        const bob = as('00000000-0000-0000-0000-000000000b0b');
        assert.equal(alice.identified, true);
        assert.notEqual(alice.tag, bob.tag, 'two principals must be two tenants');
        assert.deepEqual(callerTenant(new Headers({ 'X-MS-CLIENT-PRINCIPAL-ID': 'x' }), false), SHARED_TENANT, 'with authentication off the headers are the client\'s own and never trusted');
    });
});

describe('azd wiring of the sign-in', () => {
    it('runs the app-registration hook before provisioning, on both shells, once the settings are checked', () => {
        const yaml = parseSimpleYaml(readRepoFile('azure.yaml'), 'azure.yaml');
        for (const platform of ['posix', 'windows']) {
            assert.equal(
                getPathInsensitive(yaml, ['hooks', 'preprovision', platform, 'run']),
                'node infra/hooks/check-settings.mjs && node infra/hooks/entra-app.mjs',
                `azure.yaml hooks.preprovision.${platform}.run`
            );
        }
    });

    it('passes the hook\'s AUTH_MODE and AUTH_CLIENT_ID to the template', async () => {
        const hook = await loadHook();
        const file = readJson('infra/main.parameters.json');
        const parameters = isRecord(file) ? file['parameters'] : undefined;
        assert.equal(getPathInsensitive(parameters, ['authMode', 'value']), `\${${hook.AUTH_MODE}}`);
        assert.equal(getPathInsensitive(parameters, ['authClientId', 'value']), `\${${hook.AUTH_CLIENT_ID}}`);
    });

    it('is documented: the opt-out, an existing registration, and how VS Code signs in', () => {
        const guide = deploySection();
        for (const needle of ['AUTH_MODE', 'AUTH_CLIENT_ID', 'shared', 'aebc6443-996d-45c2-90f0-388ff96faa56', 'infra/hooks/entra-app.mjs']) {
            assert.ok(guide.includes(needle), `docs/deployment.md should mention ${needle}`);
        }
        assert.match(readRepoFile('docs/security.md'), /AUTH_MODE/, 'docs/security.md should say how sign-in is turned off');
    });
});
