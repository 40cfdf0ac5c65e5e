import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { budgetedWait, systemClock } from './budgetedWait';
import { runsOrchestrator, timeMs, type DurableStatusLike } from './durableStatus';
import { isNotFoundError } from './durableHttpError';
import { keyedWorkflowId, newWorkflowId } from './ids';
import type { StartRefusal } from './startRefusal';
import { ACTIVE_STATUSES, CAP_WITHDRAW_REASON, CountError, countActive, countRecentStarts, isWithdrawn, listActive, ranksBefore } from './workCaps';
import type { WorkflowDeps } from './workflowDeps';

/**
 * One start, read top to bottom: find the key's workflow (a keyed call) → admit (the caps, counted in
 * durable state before anything starts) → find it again (a keyed call) → start → look (rank the new workflow
 * among the running ones, three times) → keep it, or withdraw it and refuse. Why racing starts stay within the caps, and why a
 * keyed start reads its workflow back: docs/security.md, "Work caps per caller".
 */

/**
 * A workflow a start may hand out; when this call started it, `confirmation` settles with the cap's
 * refusal if the workflow had to be withdrawn after its looks, else with undefined.
 */
export interface Started {
    workflowId: string;
    confirmation?: Promise<StartRefusal | undefined>;
}

/** How long a keyed start waits for the workflow its key names to be readable, to compare its arguments. */
const KEYED_START_CHECK_MS = 5_000;

/** When a start looks at the running workflows, in ms after its start request answered: at once… */
const FIRST_LOOK_MS = 0;
/** …once the backend has settled… */
const SETTLE_MS = 1000;
/** …and a last time, by when every racing start's instance is visible. */
export const SECOND_LOOK_MS = 3000;

/** A withdraw's terminate is tried this many times: a workflow over the cap must not be left running by one lost request. */
const WITHDRAW_ATTEMPTS = 3;

/** A status read of the caller's workflow: undefined when it is unknown or expired; rejects on a backend failure. */
export type ReadWorkflow = (workflowId: string) => Promise<DurableStatusLike | undefined>;

/** What to start: any orchestration of the app, with its input. */
export interface StartRequest {
    orchestrator: string;
    /** The orchestration's input, stored with the workflow (plain JSON). */
    input: Record<string, unknown>;
    /** The fields of `input` that name the work: a keyed start finds a workflow only if they are the same. */
    matchOn: readonly string[];
}

type StartOutcome = Started | { refusal: StartRefusal };

export async function startOrFind(deps: WorkflowDeps, read: ReadWorkflow, request: StartRequest, idempotencyKey: string | undefined): Promise<StartOutcome> {
    const { log, tenant } = deps;
    const keyed = idempotencyKey !== undefined;
    const workflowId = keyed ? keyedWorkflowId(tenant, idempotencyKey) : newWorkflowId(tenant);

    // 1. Find: the key names one workflow id; a retry reads it and compares the arguments it was started with.
    if (keyed) {
        let found: DurableStatusLike | undefined;
        try {
            found = await read(workflowId);
        } catch (error) {
            log.error(`start: status read for ${workflowId} failed`, error);
            return { refusal: { kind: 'unavailable' } };
        }
        // A workflow the cap withdrew was never handed out: the key starts it again (a start on an ended id replaces it).
        if (found !== undefined && !isWithdrawn(found)) return handOutFound(deps, found, request, workflowId);
    }

    // 2. Admit: the caps, before anything starts. A keyed call's own workflow (started by a racing call with its key) is not counted against it.
    const refused = await admit(deps, keyed ? workflowId : undefined);
    if (refused !== undefined) {
        if (!keyed) return { refusal: refused };
        // A racing call with the same key may have started it meanwhile: then that workflow is the answer.
        const found = await read(workflowId).catch(() => undefined);
        return found !== undefined && !isWithdrawn(found) ? handOutFound(deps, found, request, workflowId) : { refusal: refused };
    }

    // 2b. A keyed call reads its key's workflow once more, right before its start: both Durable backends let a start
    // replace an ended instance, so a racing call with the key whose workflow started and ended while this one was
    // being admitted would otherwise be replaced by this start, and its id handed out twice (test/unit/keyedStart.test.ts).
    if (keyed) {
        let again: DurableStatusLike | undefined;
        try {
            again = await read(workflowId);
        } catch (error) {
            log.error(`start: status read for ${workflowId} failed`, error);
            return { refusal: { kind: 'unavailable' } };
        }
        if (again !== undefined && !isWithdrawn(again)) return handOutFound(deps, again, request, workflowId);
    }

    // 3. Start.
    let startError: unknown;
    try {
        await withTimeout(deps.client.startNew(request.orchestrator, { instanceId: workflowId, input: request.input }), BACKEND_CALL_TIMEOUT_MS, 'The start request');
    } catch (error) {
        startError = error;
    }
    if (!keyed) {
        if (startError !== undefined) {
            log.error(`start: could not start ${request.orchestrator} ${workflowId}`, startError);
            // A start that timed out may still be applied: it must not run unseen and uncounted.
            await withdrawIfStarted(deps, workflowId);
            return { refusal: { kind: 'start_failed' } };
        }
        // 4. Look, then keep or withdraw.
        return { workflowId, confirmation: lookThenKeep(deps, workflowId) };
    }

    // 3b. A keyed start cannot tell from the answer whether it won (racing starts on a new id may all be
    // accepted, only the first one's input kept; a start on a running id answers 409): it reads the workflow back.
    const readOnce = () =>
        read(workflowId).catch((error: unknown) => {
            log.warn(`start: status read for ${workflowId} failed`, error);
            return undefined;
        });
    // A refused start leaves whatever refused it to be read at once; an accepted one is waited for, briefly.
    const stored =
        startError === undefined
            ? (await budgetedWait<DurableStatusLike>({ read: readOnce, isFinal: () => true, budgetMs: KEYED_START_CHECK_MS, clock: deps.clock })).last
            : await readOnce();
    if (stored !== undefined) {
        if (!sameArguments(stored, request)) return { refusal: { kind: 'key_reused' } };
        return { workflowId, confirmation: lookThenKeep(deps, workflowId) };
    }
    if (startError !== undefined) {
        log.error(`start: could not start ${request.orchestrator} ${workflowId}`, startError);
        return { refusal: { kind: 'start_failed' } };
    }
    log.error(`start: ${workflowId} was accepted but could not be read back within ${KEYED_START_CHECK_MS} ms`);
    return { refusal: { kind: 'unconfirmed' } };
}

/** True when the workflow's stored input has the same values as `request.input` in every `matchOn` field. */
function sameArguments(durable: DurableStatusLike, request: StartRequest): boolean {
    const stored = durable.input;
    if (typeof stored !== 'object' || stored === null || !runsOrchestrator(durable, request.orchestrator)) return false;
    return request.matchOn.every((field) => JSON.stringify((stored as Record<string, unknown>)[field]) === JSON.stringify(request.input[field]));
}

/**
 * The workflow a key already names, found by a read: handed out if it runs the same arguments. One still
 * young enough that the call which started it may be looking at the caps gets looks of its own, so a
 * duplicate never keeps what the caps withdraw (the ranks are the same for every caller).
 */
function handOutFound(deps: WorkflowDeps, found: DurableStatusLike, request: StartRequest, workflowId: string): StartOutcome {
    if (!sameArguments(found, request)) return { refusal: { kind: 'key_reused' } };
    const created = timeMs(found.createdTime) ?? 0;
    const young = (deps.wallNow ?? Date.now)() - created < SETTLE_MS + SECOND_LOOK_MS;
    return young && (ACTIVE_STATUSES as readonly string[]).includes(found.runtimeStatus)
        ? { workflowId, confirmation: lookThenKeep(deps, workflowId) }
        : { workflowId };
}

/** The refusal of a count that failed, logged for the operator with what to do. */
function countRefusal(deps: WorkflowDeps, what: string, error: unknown): StartRefusal {
    if (error instanceof CountError && error.reason === 'unsupported') {
        deps.log.error(
            `start: the Durable backend refused the list query that ${what} (instanceIdPrefix/runtimeStatus/createdTimeFrom); ` +
                'no start can be admitted until it answers it: check that the backend provider supports these filters (docs/security.md, "Work caps per caller")',
            error.cause
        );
        return { kind: 'count_unsupported' };
    }
    deps.log.error(`start: ${what} failed`, error instanceof CountError ? error.cause : error);
    return { kind: 'count_failed' };
}

/**
 * The caps before a start. The tenant's running workflows first (MAX_ACTIVE_WORKFLOWS: the count most
 * often at its cap, so a caller at it is refused after one short query); then, together, its starts in
 * the last minute (MAX_STARTS_PER_MINUTE) and all tenants' running workflows (MAX_ACTIVE_WORKFLOWS_TOTAL).
 * Each count stops one past its cap. `own`: a keyed call's id, not counted against it.
 */
async function admit(deps: WorkflowDeps, own: string | undefined): Promise<StartRefusal | undefined> {
    const { maxActiveWorkflows: cap, maxStartsPerMinute: rate, maxActiveWorkflowsTotal: total } = deps.config;
    const tenantPrefix = `${deps.tenant.tag}-`;
    try {
        const count = await countActive(deps, { tenantPrefix }, cap, own);
        if (count >= cap) return { kind: 'at_cap', count, cap };
    } catch (error) {
        return countRefusal(deps, 'counting running workflows', error);
    }
    const [starts, everyone] = await Promise.allSettled([countRecentStarts(deps, tenantPrefix, rate, own), countActive(deps, 'all', total, own)]);
    if (starts.status === 'rejected') return countRefusal(deps, 'counting recent starts', starts.reason);
    if (starts.value >= rate) return { kind: 'rate_limited', limit: rate };
    if (everyone.status === 'rejected') return countRefusal(deps, 'counting all running workflows', everyone.reason);
    if (everyone.value >= total) return { kind: 'at_total_cap', cap: total };
    return undefined;
}

/**
 * After a start: at FIRST_LOOK_MS, SETTLE_MS and SECOND_LOOK_MS ranks `workflowId` among the tenant's
 * running workflows, and at the last look among all of them too (by creation time, then id); if the
 * tenant's cap or the total cap or more rank before it, or a look fails, withdraws it and answers the refusal.
 */
async function lookThenKeep(deps: WorkflowDeps, workflowId: string): Promise<StartRefusal | undefined> {
    const { maxActiveWorkflows: cap, maxActiveWorkflowsTotal: total } = deps.config;
    const clock = deps.clock ?? systemClock;
    let slept = 0;
    for (const at of [FIRST_LOOK_MS, SETTLE_MS, SECOND_LOOK_MS]) {
        await clock.sleep(at - slept);
        slept = at;
        let refusal: StartRefusal | undefined;
        try {
            // All tenants' at the last look only: the one that every racing start is visible to (the earlier ones only refuse sooner).
            const last = at === SECOND_LOOK_MS;
            const [tenants, everyone] = await Promise.all([
                listActive(deps, { tenantPrefix: `${deps.tenant.tag}-` }),
                last ? listActive(deps, 'all') : Promise.resolve(undefined),
            ]);
            if (ranksBefore(tenants, workflowId) >= cap) refusal = { kind: 'at_cap', count: cap, cap };
            else if (everyone !== undefined && ranksBefore(everyone, workflowId) >= total) refusal = { kind: 'at_total_cap', cap: total };
        } catch (error) {
            deps.log.warn(`start: a look at the running workflows for ${workflowId} failed; the workflow is withdrawn`, error);
            refusal = { kind: 'count_failed' };
        }
        if (refusal !== undefined) {
            await withdraw(deps, workflowId);
            return refusal;
        }
    }
    return undefined;
}

/** Terminates a workflow started over a cap, retrying a failed request (each failure logged). */
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
async function withdrawIfStarted(deps: WorkflowDeps, workflowId: string): Promise<void> {
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
