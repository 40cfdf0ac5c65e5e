import { randomUUID } from 'node:crypto';
import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { isTerminal, type DurableStatusLike } from './durableStatus';
import { DurableHttpError, isNotFoundError } from './durableHttpError';
import type { WorkflowDeps } from './workflowDeps';

/**
 * One decision per idempotency key: who may start the key's workflow. Neither Durable backend has a start that
 * fails on every existing instance (a start replaces an ended one), so two calls that both read "no workflow yet"
 * could each start it, the later replacing the earlier once it had ended. Instead a call first starts the key's
 * claim, a small orchestration (KeyClaim) on an id of its own, with a random holder in its input: a start on a
 * Pending or Running id is refused (409), and racing starts on a new id keep the first input (both pinned by
 * devhost/test/backendConformance.test.ts). Every call reads the claim back, so all see the same holder; only
 * the holder starts the workflow. The claim ends when its holder releases it or after CLAIM_LIFETIME_MS.
 * docs/contract.md, "Idempotency keys".
 */

/** The claim orchestration. Its id is never a workflow id: it does not start with a tenant's tag. */
export const KEY_CLAIM = 'KeyClaim';

const CLAIM_PREFIX = 'claim-';

/**
 * A claim held by a call that died ends by itself after this long. It outlasts a holder's path from its claim to its
 * workflow's start (a read of the claim, a read of the key, the start: each bounded by BACKEND_CALL_TIMEOUT_MS), and a
 * holder that loses sight of its start keeps the claim until then rather than let another call start over it: a start
 * request would have to land more than this long after it was sent to land over another call's run.
 */
export const CLAIM_LIFETIME_MS = 120_000;

export interface ClaimInput {
    /** Random, one per call: the call whose holder the claim shows may start the key's workflow. */
    holder: string;
    /** The workflow the claim is for (for whoever reads the task hub). */
    workflow_id: string;
    lifetime_ms: number;
}

/** The claim's id for a keyed workflow id. */
export function keyClaimId(workflowId: string): string {
    return `${CLAIM_PREFIX}${workflowId}`;
}

/** True for a claim's id: lists of workflows leave these out. */
export function isKeyClaimId(instanceId: string): boolean {
    return instanceId.startsWith(CLAIM_PREFIX);
}

/** A new holder for one call. */
export function newClaimHolder(): string {
    return randomUUID();
}

/**
 * `won`: this call holds the claim; `held`: another call does; `ended`: the claim ended between this call's start
 * and its read (its holder released it: the key's workflow is likely there now); `unavailable`: the backend did
 * not answer, or the claim is not there after its start.
 */
export type ClaimOutcome = 'won' | 'held' | 'ended' | 'unavailable';

/** Starts the key's claim with `holder` (if no claim is in force) and reads who holds it. */
export async function claimKey(deps: WorkflowDeps, workflowId: string, holder: string): Promise<ClaimOutcome> {
    const claimId = keyClaimId(workflowId);
    const input: ClaimInput = { holder, workflow_id: workflowId, lifetime_ms: CLAIM_LIFETIME_MS };
    try {
        await withTimeout(deps.client.startNew(KEY_CLAIM, { instanceId: claimId, input }), BACKEND_CALL_TIMEOUT_MS, 'The claim request');
    } catch (error) {
        // 409: a claim is in force, and the read says whose. Anything else may still have been applied: read as well.
        if (!(error instanceof DurableHttpError && error.status === 409)) deps.log.warn(`start: the claim on ${claimId} failed`, error);
    }
    const claim = await readClaim(deps, claimId);
    if (claim === 'failed') return 'unavailable';
    if (claim === undefined) {
        deps.log.error(`start: the claim ${claimId} is not there after its start`);
        return 'unavailable';
    }
    if (isTerminal(claim.runtimeStatus)) return 'ended';
    return claimHolder(claim) === holder ? 'won' : 'held';
}

/** True while a claim other than a released or expired one is in force (a failed read counts as in force). */
export async function isClaimInForce(deps: WorkflowDeps, workflowId: string): Promise<boolean> {
    const claim = await readClaim(deps, keyClaimId(workflowId));
    return claim === 'failed' || (claim !== undefined && !isTerminal(claim.runtimeStatus));
}

/** Ends this call's claim, so the next call with the key may claim it at once; best effort (it expires anyway). */
export async function releaseClaim(deps: WorkflowDeps, workflowId: string): Promise<void> {
    const claimId = keyClaimId(workflowId);
    try {
        await withTimeout(deps.client.terminate(claimId, 'released'), BACKEND_CALL_TIMEOUT_MS, 'The release of a claim');
    } catch (error) {
        deps.log.warn(`start: could not release the claim ${claimId}; it ends by itself within ${CLAIM_LIFETIME_MS / 1000} s`, error);
    }
}

async function readClaim(deps: WorkflowDeps, claimId: string): Promise<DurableStatusLike | undefined | 'failed'> {
    try {
        return await withTimeout(deps.client.getStatus(claimId, { showInput: true }), BACKEND_CALL_TIMEOUT_MS, 'The read of a claim');
    } catch (error) {
        if (isNotFoundError(error)) return undefined;
        deps.log.error(`start: the read of the claim ${claimId} failed`, error);
        return 'failed';
    }
}

function claimHolder(claim: DurableStatusLike): string | undefined {
    const input = claim.input;
    return typeof input === 'object' && input !== null && typeof (input as { holder?: unknown }).holder === 'string'
        ? (input as { holder: string }).holder
        : undefined;
}
