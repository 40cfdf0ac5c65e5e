import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { systemClock } from './budgetedWait';
import { timeMs, type DurableStatusLike } from './durableStatus';
import { isNotFoundError } from './durableHttpError';
import { isExpired, TTL_EXPIRED_REASON } from './expiry';
import type { StartRefusal } from './startRefusal';
import type { WorkflowDeps } from './workflowDeps';

/**
 * The cap on what one caller (tenant) may have running, read from durable state so that it holds across
 * every instance of the app: MAX_ACTIVE_WORKFLOWS running workflows at once (the cap on one call's work,
 * MAX_WORK, is the tool's: it knows what its work costs). Running workflows are counted by listing the tenant's instances by id prefix on the
 * Durable management API (every workflow id starts with its tenant's tag, ids.ts).
 *
 * Racing starts: a start counts first (refused at the cap), starts, and then looks twice (SETTLE_MS and
 * SECOND_LOOK_MS after its start) at the tenant's running workflows, ranked by creation time (then id). It
 * keeps its workflow only if both times fewer than the cap rank before it; otherwise, or when a look fails,
 * it withdraws it (terminates it) and refuses the call. Ranks are the same for every caller, so of any set
 * of racing starts the first ones by creation time stay, never more than the cap, provided that every
 * start's instance is visible within SECOND_LOOK_MS of its creation time. That is what needs the second
 * look: the real extension stamps an instance's creation time when it takes the start request, and
 * writes the row a storage round trip later, which on a loaded host was seen to take more than a second
 * (an instance created before another, and seen only after that one had kept its place). The management
 * API gives creation times in whole seconds; ties are broken by id, the same way for everyone.
 * The overshoot is in time: a withdrawn workflow runs, and counts, until its terminate is applied (the real
 * extension applies it when it next polls the control queue, within about 2 s when idle, longer under
 * load), and its first MineBlock until the end watch sees that (2 s more).
 *
 * A count is also where expired tasks end: a running (or suspended) workflow past its task ttl is
 * terminated and not counted (its owner can no longer see or cancel it, so it must not hold a place).
 */

/** The runtime statuses that count as running (MineChain never continues as new; suspended holds no CPU). */
export const ACTIVE_STATUSES = ['Running', 'Pending', 'ContinuedAsNew'] as const;
/** The count lists these: the active ones, and suspended ones that may have expired (ended, never counted). */
const LISTED_STATUSES = [...ACTIVE_STATUSES, 'Suspended'] as const;

/** The count stops after this many pages (a page may hold fewer than asked for, on Azure Storage even none). */
export const COUNT_MAX_PAGES = 20;
/** …or after this long, whichever comes first. */
export const COUNT_TIME_LIMIT_MS = BACKEND_CALL_TIMEOUT_MS;

/** How long after its start a start first ranks itself among the tenant's running workflows… */
export const SETTLE_MS = 1000;
/** …and when it looks again (from its start). */
export const SECOND_LOOK_MS = 3000;

/** A withdraw's terminate is tried this many times: a workflow over the cap must not be left running by one lost request. */
export const WITHDRAW_ATTEMPTS = 3;

/** The reason a withdrawn workflow is terminated with. */
export const CAP_MARKER = 'max_active_workflows';
export const CAP_WITHDRAW_REASON = `${CAP_MARKER}: withdrawn, the caller was over the cap when it started`;

/**
 * The tenant's running workflows, counting up to `stopAt` (the count is exact below it). Bounded in pages
 * and in time; a failure, or a count that the bounds cut short below `stopAt`, rejects: the caller then
 * refuses the start (a cap that cannot be checked is not waved through).
 */
export async function countActiveWorkflows(deps: WorkflowDeps, stopAt: number): Promise<number> {
    return (await listActiveWorkflows(deps, stopAt)).size;
}

/**
 * The tenant's running workflows (id → creation time in ms), all of them or the first `stopAt` found.
 * Bounded in pages (COUNT_MAX_PAGES of 100) and in time; rejects when the bounds cut it short.
 */
async function listActiveWorkflows(deps: WorkflowDeps, stopAt: number): Promise<Map<string, number>> {
    const stop = new AbortController();
    const nowMs = (deps.wallNow ?? Date.now)();
    const work = (async () => {
        const prefix = `${deps.tenant.tag}-`;
        const seen = new Map<string, number>();
        let continuationToken: string | undefined;
        for (let page = 0; page < COUNT_MAX_PAGES; page++) {
            const answer = await deps.client.listInstances(
                { instanceIdPrefix: prefix, top: Math.min(100, stopAt), runtimeStatus: LISTED_STATUSES, showInput: true, continuationToken },
                stop.signal
            );
            for (const instance of answer.instances) {
                // The backend filters; this holds the count to the tenant's own, whatever it answers.
                const id = instance.instanceId;
                if (id === undefined || !id.startsWith(prefix)) continue;
                if (isExpired(instance, nowMs)) {
                    void endExpired(deps, id);
                    continue;
                }
                if (!isActive(instance)) continue;
                seen.set(id, timeMs(instance.createdTime) ?? Number.MAX_SAFE_INTEGER);
            }
            if (seen.size >= stopAt) return seen;
            continuationToken = answer.continuationToken;
            if (continuationToken === undefined) return seen;
        }
        throw new Error(`the count of running workflows took more than ${COUNT_MAX_PAGES} pages`);
    })();
    try {
        return await withTimeout(work, COUNT_TIME_LIMIT_MS, 'The count of running workflows');
    } finally {
        // Stops any page still being fetched: nothing pages on in the background.
        stop.abort();
    }
}

function isActive(instance: DurableStatusLike): boolean {
    return (ACTIVE_STATUSES as readonly string[]).includes(instance.runtimeStatus);
}

/** Ends a running workflow past its task ttl; best effort (the next count tries again). */
async function endExpired(deps: WorkflowDeps, workflowId: string): Promise<void> {
    try {
        await withTimeout(deps.client.terminate(workflowId, TTL_EXPIRED_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
    } catch (error) {
        deps.log.warn(`Could not end the expired workflow ${workflowId}`, error);
    }
}

/** True for a workflow withdrawn by the cap check (terminated with CAP_WITHDRAW_REASON). */
export function isWithdrawn(durable: DurableStatusLike): boolean {
    return durable.runtimeStatus === 'Terminated' && typeof durable.output === 'string' && durable.output.includes(CAP_MARKER);
}

/** Before a start: the refusal when the tenant is at its cap (or the count failed), else undefined. */
export async function admitStart(deps: WorkflowDeps): Promise<StartRefusal | undefined> {
    const cap = deps.config.maxActiveWorkflows;
    let count: number;
    try {
        count = await countActiveWorkflows(deps, cap);
    } catch (error) {
        deps.log.error('start: counting running workflows failed', error);
        return { kind: 'count_failed' };
    }
    return count >= cap ? { kind: 'at_cap', count, cap } : undefined;
}

/**
 * After a start: ranks `workflowId` among the tenant's running workflows SETTLE_MS and SECOND_LOOK_MS after
 * the start and, if either time the cap or more rank before it, withdraws it and answers the refusal. A look
 * that fails withdraws it too: under load that is when starts race most, and a workflow kept unchecked
 * would be one over the cap.
 */
export async function confirmStart(deps: WorkflowDeps, workflowId: string): Promise<StartRefusal | undefined> {
    const cap = deps.config.maxActiveWorkflows;
    const clock = deps.clock ?? systemClock;
    for (const pause of [SETTLE_MS, SECOND_LOOK_MS - SETTLE_MS]) {
        await clock.sleep(pause);
        let active: Map<string, number>;
        try {
            active = await listActiveWorkflows(deps, COUNT_MAX_PAGES * 100);
        } catch (error) {
            deps.log.warn(`start: a second count for ${workflowId} failed; the workflow is withdrawn`, error);
            await withdraw(deps, workflowId);
            return { kind: 'count_failed' };
        }
        if (ranksBefore(active, workflowId) >= cap) {
            await withdraw(deps, workflowId);
            return { kind: 'at_cap', count: cap, cap };
        }
    }
    return undefined;
}

/** How many running workflows rank before `workflowId` (by creation time, then id; one not visible ranks last). */
function ranksBefore(active: Map<string, number>, workflowId: string): number {
    const mine = active.get(workflowId) ?? Number.MAX_SAFE_INTEGER;
    let before = 0;
    for (const [id, created] of active) {
        if (id !== workflowId && (created < mine || (created === mine && id < workflowId))) before++;
    }
    return before;
}

/** Terminates a workflow started over the cap, retrying a failed request (each failure logged). */
async function withdraw(deps: WorkflowDeps, workflowId: string): Promise<void> {
    for (let attempt = 1; attempt <= WITHDRAW_ATTEMPTS; attempt++) {
        try {
            await withTimeout(deps.client.terminate(workflowId, CAP_WITHDRAW_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
            return;
        } catch (error) {
            deps.log.error(`start: could not withdraw ${workflowId} (attempt ${attempt} of ${WITHDRAW_ATTEMPTS})`, error);
        }
    }
}

/**
 * After a start request that failed without an answer (a timeout under load): the backend may still apply
 * it, and the caller was told that nothing started. SETTLE_MS later, and once more after as long again
 * while no such workflow exists (404), it is withdrawn. Best effort and bounded; failures are logged.
 */
export async function withdrawIfStarted(deps: WorkflowDeps, workflowId: string): Promise<void> {
    const clock = deps.clock ?? systemClock;
    for (let look = 0; look < 2; look++) {
        await clock.sleep(SETTLE_MS);
        try {
            await withTimeout(deps.client.terminate(workflowId, CAP_WITHDRAW_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
            return;
        } catch (error) {
            if (!isNotFoundError(error)) deps.log.warn(`start: could not withdraw ${workflowId}, whose start failed`, error);
        }
    }
}
