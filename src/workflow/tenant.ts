import { createHash } from 'node:crypto';

/**
 * Who owns a workflow. Every workflow id starts with its tenant's tag, so a tool can tell, before any
 * backend call, that an id is not the caller's and answer not_found, as for an unknown id.
 */
export interface Tenant {
    /** Letters and digits only: it is the first part of every workflow id the tenant owns. */
    readonly tag: string;
    /**
     * True when the caller is a platform-validated principal; false for the one tenant shared by every
     * caller that cannot be told apart (authentication off, or an anonymous request).
     */
    readonly identified: boolean;
}

/** Every caller, when callers cannot be told apart. */
export const SHARED_TENANT: Tenant = { tag: 'shared', identified: false };

/**
 * The tenant of a principal validated by App Service Authentication. The tag is a hash, so ids do not
 * reveal who owns them; 20 hex characters (80 bits) keep principals apart. The identity provider is part
 * of the hash because ids are only unique per provider.
 */
export function principalTenant(identityProvider: string, principalId: string): Tenant {
    const digest = createHash('sha256').update(`${identityProvider}\n${principalId}`, 'utf8').digest('hex');
    return { tag: `p${digest.slice(0, 20)}`, identified: true };
}
