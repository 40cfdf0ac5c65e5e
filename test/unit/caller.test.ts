import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callerTenant, isPlatformAuthEnabled, mcpAuthLevel } from '../../src/mcp/http/caller';
import { principalTenant, SHARED_TENANT } from '../../src/workflow/tenant';

const principal = { 'x-ms-client-principal-id': 'alice-oid', 'x-ms-client-principal-idp': 'aad' };

describe('the caller', () => {
    it('is a tenant per validated principal when App Service Authentication is on', () => {
        assert.deepEqual(callerTenant(new Headers(principal), true), principalTenant('aad', 'alice-oid'));
        assert.equal(callerTenant(new Headers(principal), true).identified, true);
    });

    it('is the shared tenant when authentication is off, whatever headers the client sends', () => {
        assert.deepEqual(callerTenant(new Headers(principal), false), SHARED_TENANT);
        assert.deepEqual(callerTenant(new Headers(), false), SHARED_TENANT);
    });

    it('is the shared tenant for an anonymous request that authentication let through', () => {
        assert.deepEqual(callerTenant(new Headers(), true), SHARED_TENANT);
        assert.deepEqual(callerTenant(new Headers({ 'x-ms-client-principal-id': '  ' }), true), SHARED_TENANT);
    });

    it('trusts the headers only when the platform says authentication is on', () => {
        assert.equal(isPlatformAuthEnabled({ WEBSITE_AUTH_ENABLED: 'True' }), true);
        assert.equal(isPlatformAuthEnabled({ WEBSITE_AUTH_ENABLED: 'true' }), true);
        assert.equal(isPlatformAuthEnabled({ WEBSITE_AUTH_ENABLED: 'False' }), false);
        assert.equal(isPlatformAuthEnabled({}), false);
    });

    it('needs no function key only when the deployment says a token is enough and App Service Authentication is on', () => {
        assert.equal(mcpAuthLevel(false, true), 'anonymous');
        assert.equal(mcpAuthLevel(false, false), 'function', 'the setting alone, on an app without sign-in, keeps the key');
        assert.equal(mcpAuthLevel(true, true), 'function');
        assert.equal(mcpAuthLevel(true, false), 'function');
    });
});
