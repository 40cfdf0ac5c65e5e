import { principalTenant, SHARED_TENANT, type Tenant } from '../../workflow/tenant';

/**
 * Who is calling, from the request as App Service Authentication (Easy Auth) leaves it. When it is on,
 * the platform validates the caller, strips any x-ms-client-principal-* header the client sent and sets
 * its own; when it is off, those headers are whatever the client wrote, so they are never trusted.
 */

/** The platform sets WEBSITE_AUTH_ENABLED=True on an app whose App Service Authentication is on. */
export function isPlatformAuthEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
    return env.WEBSITE_AUTH_ENABLED?.trim().toLowerCase() === 'true';
}

/**
 * The mcp function's authLevel: a function key, unless the deployment says a valid token is enough
 * (MCP_FUNCTION_KEY_REQUIRED=false) and App Service Authentication is indeed on. Either alone keeps the key, so a
 * setting copied to an app without sign-in never opens it.
 */
export function mcpAuthLevel(functionKeyRequired: boolean, platformAuthEnabled: boolean): 'function' | 'anonymous' {
    return functionKeyRequired || !platformAuthEnabled ? 'function' : 'anonymous';
}

export function callerTenant(headers: Headers, platformAuthEnabled: boolean): Tenant {
    if (!platformAuthEnabled) return SHARED_TENANT;
    const principalId = headers.get('x-ms-client-principal-id')?.trim();
    // Easy Auth may let anonymous requests through ("allow unauthenticated"): they share one tenant.
    if (!principalId) return SHARED_TENANT;
    return principalTenant(headers.get('x-ms-client-principal-idp')?.trim() ?? '', principalId);
}
