import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { timeMs, type DurableStatusLike } from './durableStatus';
import { DurableHttpError } from './durableHttpError';
import { isExpired, TTL_EXPIRED_REASON } from './expiry';
import { isKeyClaimId } from './keyClaim';
import type { InstanceQuery } from './workflowClient';
import type { WorkflowDeps } from './workflowDeps';

/**
 * The counts the caps are checked with, read from durable state (the Durable management API's list query)
 * so that they hold across every instance of the app: nothing here lives in process memory. Plain
 * functions: each lists, counts or ranks, and startOrFind.ts decides. Why the counts race safely:
 * docs/security.md, "Work caps per caller".
 */

/** The runtime statuses that count as running (a job never continues as new; suspended holds no CPU). */
export const ACTIVE_STATUSES = ['Running', 'Pending', 'ContinuedAsNew'] as const;
/** A count lists these: the active ones, and suspended ones that may have expired (ended, never counted). */
const LISTED_STATUSES = [...ACTIVE_STATUSES, 'Suspended'] as const;

/** A count stops after this many pages (a page may hold fewer than asked for, on Azure Storage even none)… */
export const COUNT_MAX_PAGES = 20;
/** …or after this long, whichever comes first. */
const COUNT_TIME_LIMIT_MS = BACKEND_CALL_TIMEOUT_MS;

/** The start rate is counted over this window (MAX_STARTS_PER_MINUTE). */
const START_RATE_WINDOW_MS = 60_000;

/** The reason a withdrawn workflow is terminated with. */
const CAP_MARKER = 'max_active_workflows';
export const CAP_WITHDRAW_REASON = `${CAP_MARKER}: withdrawn, the caller was over the cap when it started`;

/** Which workflows a count looks at: one tenant's (by its id prefix), or every tenant's. */
export type Scope = { tenantPrefix: string } | 'all';

/**
 * A count that could not be made. `unsupported`: the backend refused the list query itself (an HTTP 4xx
 * other than 408/429, e.g. a provider without the instanceIdPrefix filter), which a retry will not mend;
 * `failed`: anything else (a timeout, a 5xx, a count cut short by its bounds).
 */
export class CountError extends Error {
    override name = 'CountError';
    constructor(
        readonly reason: 'unsupported' | 'failed',
        override readonly cause: unknown
    ) {
        super(`the count of workflows failed (${reason})`);
    }
}

function countError(error: unknown): CountError {
    if (error instanceof CountError) return error;
    const refused = error instanceof DurableHttpError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
    return new CountError(refused ? 'unsupported' : 'failed', error);
}

/**
 * The workflows a query lists (id → creation time in ms; one without a time ranks last), up to `stopAt`
 * (exact below it), leaving out `exclude` (a keyed start's own id). Bounded in pages and in time; rejects
 * with a CountError when the query fails or the bounds cut it short below `stopAt`. Expired ones are ended
 * (best effort) and left out.
 */
async function listWorkflows(
    deps: WorkflowDeps,
    query: Omit<InstanceQuery, 'top' | 'continuationToken' | 'showInput'>,
    stopAt: number,
    keep: (instance: DurableStatusLike) => boolean,
    exclude?: string
): Promise<Map<string, number>> {
    const stop = new AbortController();
    const nowMs = (deps.wallNow ?? Date.now)();
    const work = (async () => {
        const seen = new Map<string, number>();
        let continuationToken: string | undefined;
        for (let page = 0; page < COUNT_MAX_PAGES; page++) {
            const answer = await deps.client.listInstances(
                { ...query, top: Math.max(1, Math.min(100, stopAt)), showInput: true, continuationToken },
                stop.signal
            );
            for (const instance of answer.instances) {
                const id = instance.instanceId;
                // The backend filters; this holds the count to what was asked, whatever it answers.
                // A key's claim (keyClaim.ts) is bookkeeping, not work: no cap counts it.
                if (id === undefined || !id.startsWith(query.instanceIdPrefix) || isKeyClaimId(id)) continue;
                // Expired ones are ended, a keyed call's own too (so that its key can start again).
                if (isExpired(instance, nowMs)) {
                    if (isActive(instance) || instance.runtimeStatus === 'Suspended') void endExpired(deps, id);
                    continue;
                }
                if (id === exclude) continue;
                if (!keep(instance)) continue;
                seen.set(id, timeMs(instance.createdTime) ?? Number.MAX_SAFE_INTEGER);
            }
            if (seen.size >= stopAt) return seen;
            continuationToken = answer.continuationToken;
            if (continuationToken === undefined) return seen;
        }
        throw new CountError('failed', new Error(`the count took more than ${COUNT_MAX_PAGES} pages`));
    })();
    try {
        return await withTimeout(work, COUNT_TIME_LIMIT_MS, 'The count of workflows');
    } catch (error) {
        throw countError(error);
    } finally {
        // Stops any page still being fetched: nothing pages on in the background.
        stop.abort();
    }
}

function prefixOf(scope: Scope): string {
    return scope === 'all' ? '' : scope.tenantPrefix;
}

function isActive(instance: DurableStatusLike): boolean {
    return (ACTIVE_STATUSES as readonly string[]).includes(instance.runtimeStatus);
}

/** The running workflows in `scope` (id → creation time), all of them or the first `stopAt` found. */
export function listActive(deps: WorkflowDeps, scope: Scope, stopAt: number = COUNT_MAX_PAGES * 100, exclude?: string): Promise<Map<string, number>> {
    return listWorkflows(deps, { instanceIdPrefix: prefixOf(scope), runtimeStatus: LISTED_STATUSES }, stopAt, isActive, exclude);
}

/** How many running workflows `scope` has, counting up to `stopAt` (exact below it). */
export async function countActive(deps: WorkflowDeps, scope: Scope, stopAt: number, exclude?: string): Promise<number> {
    return (await listActive(deps, scope, stopAt, exclude)).size;
}

/**
 * How many workflows the tenant created in the last START_RATE_WINDOW_MS, whatever their status now
 * (withdrawn and finished ones too: each was a start), counting up to `stopAt`.
 */
export async function countRecentStarts(deps: WorkflowDeps, tenantPrefix: string, stopAt: number, exclude?: string): Promise<number> {
    const from = new Date((deps.wallNow ?? Date.now)() - START_RATE_WINDOW_MS);
    const starts = await listWorkflows(deps, { instanceIdPrefix: tenantPrefix, createdTimeFrom: from }, stopAt, () => true, exclude);
    return starts.size;
}

/** How many running workflows rank before `workflowId` (by creation time, then id; one not listed ranks last). */
export function ranksBefore(active: ReadonlyMap<string, number>, workflowId: string): number {
    const mine = active.get(workflowId) ?? Number.MAX_SAFE_INTEGER;
    let before = 0;
    for (const [id, created] of active) {
        if (id !== workflowId && (created < mine || (created === mine && id < workflowId))) before++;
    }
    return before;
}

/** True for a workflow withdrawn by the cap check (terminated with CAP_WITHDRAW_REASON). */
export function isWithdrawn(durable: DurableStatusLike): boolean {
    return durable.runtimeStatus === 'Terminated' && typeof durable.output === 'string' && durable.output.includes(CAP_MARKER);
}

/** Ends a running workflow past its task ttl; best effort (the next count tries again). */
async function endExpired(deps: WorkflowDeps, workflowId: string): Promise<void> {
    try {
        await withTimeout(deps.client.terminate(workflowId, TTL_EXPIRED_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
    } catch (error) {
        deps.log.warn(`Could not end the expired workflow ${workflowId}`, error);
    }
}
