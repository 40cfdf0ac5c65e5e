import { createHash, randomUUID } from 'node:crypto';
import type { Tenant } from './tenant';

/**
 * Workflow ids: `{tenant tag}-{rest}`, opaque to clients, at most 100 characters from [A-Za-z0-9-]
 * (a limit of the Durable Task Scheduler). The durable client pastes ids into management URLs,
 * so anything else is rejected before it gets there.
 */

export const WORKFLOW_ID_MAX_LENGTH = 100;

const WELL_FORMED = new RegExp(`^[A-Za-z0-9-]{1,${WORKFLOW_ID_MAX_LENGTH}}$`);

/** A new, unguessable id: the tenant's tag and a random UUID (122 random bits). */
export function newWorkflowId(tenant: Tenant): string {
    return `${tenant.tag}-${randomUUID()}`;
}

/**
 * The one id an idempotency key names for a tenant: the same key always gives the same id, so a
 * retried start finds the workflow it started. Hashed so that any key (up to 255 characters of
 * anything) makes a well-formed id; the tenant is in the hash as well as in the prefix.
 */
export function keyedWorkflowId(tenant: Tenant, idempotencyKey: string): string {
    const digest = createHash('sha256').update(`${tenant.tag}\n${idempotencyKey}`, 'utf8').digest('hex');
    return `${tenant.tag}-k${digest.slice(0, 40)}`;
}

/** True when the id could have come from this module's alphabet and length limit. */
export function isWellFormedWorkflowId(id: string): boolean {
    return WELL_FORMED.test(id);
}

/**
 * True when the id is well formed and names a workflow of this tenant. Anything else is answered
 * not_found without a backend call: another tenant's workflow looks exactly like an unknown one.
 */
export function isTenantWorkflowId(tenant: Tenant, id: string): boolean {
    return isWellFormedWorkflowId(id) && id.startsWith(`${tenant.tag}-`);
}
