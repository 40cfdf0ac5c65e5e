import { randomUUID } from 'node:crypto';

/**
 * Workflow ids: opaque to clients, unguessable, and at most 100 characters from [A-Za-z0-9-]
 * (a limit of the Durable Task Scheduler). The durable client pastes ids into management URLs,
 * so anything else is rejected before it gets there.
 */

export const WORKFLOW_ID_MAX_LENGTH = 100;

const WELL_FORMED = new RegExp(`^[A-Za-z0-9-]{1,${WORKFLOW_ID_MAX_LENGTH}}$`);

/** A new id: a random UUID (122 random bits), 36 characters. */
export function newWorkflowId(): string {
    return randomUUID();
}

/** True when the id could have come from newWorkflowId's alphabet and length limit. */
export function isWellFormedWorkflowId(id: string): boolean {
    return WELL_FORMED.test(id);
}
