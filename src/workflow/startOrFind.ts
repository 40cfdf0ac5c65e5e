import { setTimeout as delay } from 'node:timers/promises';
import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { budgetedWait, systemClock } from './budgetedWait';
import { runsOrchestrator, timeMs, type DurableStatusLike } from './durableStatus';
import { DurableHttpError, isNotFoundError } from './durableHttpError';
import { keyedWorkflowId, newWorkflowId } from './ids';
import { CLAIM_LIFETIME_MS, claimKey, isClaimInForce, newClaimHolder, releaseClaim } from './keyClaim';
import type { StartRefusal } from './startRefusal';
import { ACTIVE_STATUSES, CAP_WITHDRAW_REASON, CountError, countActive, countRecentStarts, isWithdrawn, listActive, ranksBefore } from './workCaps';
import type { WorkflowDeps } from './workflowDeps';

/**
 * One start, read top to bottom. Without a key: admit (the caps, counted in durable state before anything
 * starts) → start → look (rank the new workflow among the running ones, three times) → keep it, or withdraw
 * it and refuse. With a key: find the key's workflow → admit → claim the key (one call per key starts) → find
 * again, start, read back → look as above. Why racing starts stay within the caps: docs/security.md, "Work caps
 * per caller"; why a keyed start claims its key: src/workflow/keyClaim.ts.
 */

/**
 * A workflow a start may hand out; when this call started it, `confirmation` settles with the cap's
 * refusal if the workflow had to be withdrawn after its looks, else with undefined.
 */
export interface Started {
    workflowId: string;
    confirmation?: Promise<StartRefusal | undefined>;
}

/** How long the holder of a key's claim waits for the workflow it started to be readable, to compare its arguments. */
const KEYED_START_CHECK_MS = 5_000;

/** When a start looks at the running workflows, in ms after its start request answered: at once… */
const FIRST_LOOK_MS = 0;
/** …once the backend has settled… */
const SETTLE_MS = 1000;
/** …and a last time, by when every racing start's instance is visible. */
export const SECOND_LOOK_MS = 3000;

/** A withdraw's terminate is tried this many times: a workflow over the cap must not be left running by one lost request. */
const WITHDRAW_ATTEMPTS = 3;

/**
 * A running workflow this old is past every look its own start made (a start may take BACKEND_CALL_TIMEOUT_MS, its
 * looks SECOND_LOOK_MS, a withdraw WITHDRAW_ATTEMPTS timeouts): if it still ranks at or past the cap, it is a stray.
 */
const STRAY_AFTER_MS = 60_000;

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

/**
 * A keyed call finds and claims this many times at most: again after a claim that ended without a workflow (its
 * holder could not read the key), or that ended while this call claimed (its holder was done: the workflow is there).
 */
const KEYED_ROUNDS = 5;

/** How long a keyed call that another call's claim holds off waits for that call's workflow to appear. */
const HOLDER_WAIT_MS = 20_000;

/** The holder sends its start within this long of winning the claim, or not at all: well inside the claim's lifetime. */
const HOLDER_START_DEADLINE_MS = CLAIM_LIFETIME_MS / 4;

export async function startOrFind(deps: WorkflowDeps, read: ReadWorkflow, request: StartRequest, idempotencyKey: string | undefined): Promise<StartOutcome> {
    return idempotencyKey === undefined
        ? startUnkeyed(deps, request, newWorkflowId(deps.tenant))
        : startKeyed(deps, read, request, keyedWorkflowId(deps.tenant, idempotencyKey));
}

/** Admit, start, then look and keep or withdraw. */
async function startUnkeyed(deps: WorkflowDeps, request: StartRequest, workflowId: string): Promise<StartOutcome> {
    const refused = await admit(deps, undefined);
    if (refused !== undefined) return { refusal: refused };
    try {
        await withTimeout(deps.client.startNew(request.orchestrator, { instanceId: workflowId, input: request.input }), BACKEND_CALL_TIMEOUT_MS, 'The start request');
    } catch (error) {
        deps.log.error(`start: could not start ${request.orchestrator} ${workflowId}`, error);
        // A start that timed out may still be applied: it must not run unseen and uncounted.
        await withdrawIfStarted(deps, workflowId);
        return { refusal: { kind: 'start_failed' } };
    }
    return { workflowId, confirmation: lookThenKeep(deps, workflowId) };
}

/**
 * A keyed start. The key names one workflow id: a retry finds the workflow there and compares the arguments it
 * was started with. Otherwise, once admitted, only the call that holds the key's claim (keyClaim.ts) starts it; a
 * call held off by another call's claim waits for that call's workflow and compares, or claims again if the claim
 * ended without one.
 */
async function startKeyed(deps: WorkflowDeps, read: ReadWorkflow, request: StartRequest, workflowId: string): Promise<StartOutcome> {
    const holder = newClaimHolder();
    for (let round = 1; round <= KEYED_ROUNDS; round++) {
        const found = await findKept(deps, read, workflowId);
        if (found === 'failed') return { refusal: { kind: 'unavailable' } };
        if (found !== undefined) return handOutFound(deps, found, request, workflowId);

        // The caps before the claim: a refused call takes none. The key's own workflow (a withdrawn one being
        // started again) is not counted against it, and a racing call with the key may have started it meanwhile:
        // then that workflow is the answer, so a keyed duplicate is never refused by the caps.
        const refused = await admit(deps, workflowId);
        if (refused !== undefined) {
            const started = await findKept(deps, read, workflowId);
            return started !== undefined && started !== 'failed' ? handOutFound(deps, started, request, workflowId) : { refusal: refused };
        }

        const claim = await claimKey(deps, workflowId, holder);
        if (claim === 'unavailable') return { refusal: { kind: 'unavailable' } };
        if (claim === 'won') return startAsHolder(deps, read, request, workflowId);
        if (claim === 'ended') continue;

        const waited = await awaitHolder(deps, read, workflowId);
        if (waited === 'timed_out') {
            deps.log.error(`start: the claim on ${workflowId} held this call off for ${HOLDER_WAIT_MS} ms and its workflow did not appear`);
            return { refusal: { kind: 'key_busy', retryAfterSeconds: CLAIM_LIFETIME_MS / 1000 } };
        }
        if (waited !== 'claim_ended') return handOutFound(deps, waited, request, workflowId);
    }
    deps.log.error(`start: the claim on ${workflowId} ended ${KEYED_ROUNDS} times without a workflow`);
    return { refusal: { kind: 'key_busy', retryAfterSeconds: CLAIM_LIFETIME_MS / 1000 } };
}

/**
 * The key's workflow, read: undefined when there is none or the cap withdrew it (it was never handed out, and
 * the key starts it again: a start on an ended id replaces it); 'failed' when the read failed.
 */
async function findKept(deps: WorkflowDeps, read: ReadWorkflow, workflowId: string): Promise<DurableStatusLike | undefined | 'failed'> {
    try {
        const found = await read(workflowId);
        return found !== undefined && !isWithdrawn(found) ? found : undefined;
    } catch (error) {
        deps.log.error(`start: status read for ${workflowId} failed`, error);
        return 'failed';
    }
}

/** The holder's own start: find again, start, read back. The claim is released once the outcome is certain. */
async function startAsHolder(deps: WorkflowDeps, read: ReadWorkflow, request: StartRequest, workflowId: string): Promise<StartOutcome> {
    const clock = deps.clock ?? systemClock;
    const wonAt = clock.now();
    const release = <T>(outcome: T): Promise<T> => releaseClaim(deps, workflowId).then(() => outcome);
    // The claim's previous holder may have started the workflow since this call's find.
    const again = await findKept(deps, read, workflowId);
    if (again === 'failed') return release({ refusal: { kind: 'unavailable' } });
    if (again !== undefined) return release(handOutFound(deps, again, request, workflowId));
    // A start sent this late could land after the claim has expired and another call has started the key: not sent.
    if (clock.now() - wonAt > HOLDER_START_DEADLINE_MS) {
        deps.log.error(`start: the claim on ${workflowId} was won ${Math.round(clock.now() - wonAt)} ms ago; too late to start under it`);
        return { refusal: { kind: 'unavailable' } };
    }

    let startError: unknown;
    try {
        await withTimeout(deps.client.startNew(request.orchestrator, { instanceId: workflowId, input: request.input }), BACKEND_CALL_TIMEOUT_MS, 'The start request');
    } catch (error) {
        startError = error;
    }
    // Read back: a start on a new id can be accepted and yet not be the one kept, so only the stored input tells.
    // A withdrawn run this start replaces is not it.
    const readOnce = async () => {
        const stored = await findKept(deps, read, workflowId);
        return stored === 'failed' ? undefined : stored;
    };
    // A refused start leaves whatever refused it to be read at once; an accepted one is waited for, briefly.
    const stored =
        startError === undefined
            ? (await budgetedWait<DurableStatusLike>({ read: readOnce, isFinal: () => true, budgetMs: KEYED_START_CHECK_MS, clock: deps.clock })).last
            : await readOnce();
    if (stored !== undefined) {
        if (!sameArguments(stored, request)) return release({ refusal: { kind: 'key_reused' } });
        return release({ workflowId, confirmation: lookThenKeep(deps, workflowId) });
    }
    if (startError !== undefined) {
        deps.log.error(`start: could not start ${request.orchestrator} ${workflowId}`, startError);
        // Refused (409: an instance this call cannot read holds the id, e.g. a task past its ttl that still runs): the
        // start did not land, so the claim goes. Anything else may still land: the claim is kept until it expires
        // rather than let another call start over it.
        const refused = startError instanceof DurableHttpError && startError.status === 409;
        return refused ? release({ refusal: { kind: 'start_failed' } }) : { refusal: { kind: 'start_failed' } };
    }
    // Accepted, not read back: it may still appear, so the claim is kept, as above.
    deps.log.error(`start: ${workflowId} was accepted but could not be read back within ${KEYED_START_CHECK_MS} ms`);
    return { refusal: { kind: 'unconfirmed' } };
}

/** Waits, within HOLDER_WAIT_MS, for the key's workflow (started by the claim's holder) or for the claim to end without one. */
async function awaitHolder(deps: WorkflowDeps, read: ReadWorkflow, workflowId: string): Promise<DurableStatusLike | 'claim_ended' | 'timed_out'> {
    const look = async (): Promise<DurableStatusLike | 'claim_ended' | undefined> => {
        const found = await findKept(deps, read, workflowId);
        if (found !== undefined && found !== 'failed') return found;
        return (await isClaimInForce(deps, workflowId)) ? undefined : 'claim_ended';
    };
    const { last, final } = await budgetedWait({ read: look, isFinal: () => true, budgetMs: HOLDER_WAIT_MS, clock: deps.clock });
    return final && last !== undefined ? last : 'timed_out';
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
        if (count >= cap) {
            void withdrawStrays(deps, tenantPrefix, cap);
            return { kind: 'at_cap', count, cap };
        }
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
            // Not listed: ended, or not visible yet, or withdrawn by a racing call's look (the one that started it, for a
            // duplicate that found it): a withdrawn workflow is never kept.
            if (!tenants.has(workflowId) && (await isWithdrawnNow(deps, workflowId))) return { kind: 'at_cap', count: cap, cap };
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

/** The tenants (by id prefix) whose strays this process is withdrawing now: one sweep each at a time, in a flood too. */
const sweeping = new Set<string>();

/**
 * A refusal at the cap also withdraws the tenant's strays: running workflows past their own looks that rank at or
 * past the cap. One arises when a start's withdraw gave up (a start that timed out and landed later than its looks
 * at it, or a terminate lost WITHDRAW_ATTEMPTS times under load): its caller was refused, and nobody else would end
 * it. The newest go first, so the ones kept are the ones handed out. Best effort, after the answer; failures logged.
 */
async function withdrawStrays(deps: WorkflowDeps, tenantPrefix: string, cap: number): Promise<void> {
    if (sweeping.has(tenantPrefix)) return;
    sweeping.add(tenantPrefix);
    try {
        const active = await listActive(deps, { tenantPrefix });
        const now = (deps.wallNow ?? Date.now)();
        const ranked = [...active].sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : 1));
        for (const [workflowId, created] of ranked.slice(cap)) {
            if (now - created < STRAY_AFTER_MS) continue;
            deps.log.warn(`start: ${workflowId} runs past the cap ${now - created} ms after it was created; withdrawn`);
            await withdraw(deps, workflowId);
        }
    } catch (error) {
        deps.log.warn(`start: could not look for workflows past the cap of ${tenantPrefix}`, error);
    } finally {
        sweeping.delete(tenantPrefix);
    }
}

/** True when a read shows the workflow withdrawn by the cap check; a failed read shows nothing. */
async function isWithdrawnNow(deps: WorkflowDeps, workflowId: string): Promise<boolean> {
    try {
        return isWithdrawn(await withTimeout(deps.client.getStatus(workflowId, { showInput: false }), BACKEND_CALL_TIMEOUT_MS, 'A status read'));
    } catch {
        return false;
    }
}

/** Terminates a workflow started over a cap, retrying a failed request (each failure logged); then watches that it ends. */
async function withdraw(deps: WorkflowDeps, workflowId: string): Promise<void> {
    for (let attempt = 1; attempt <= WITHDRAW_ATTEMPTS; attempt++) {
        try {
            await withTimeout(deps.client.terminate(workflowId, CAP_WITHDRAW_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
            void watchWithdrawal(deps, workflowId);
            return;
        } catch (error) {
            deps.log.error(`start: could not withdraw ${workflowId} (attempt ${attempt} of ${WITHDRAW_ATTEMPTS})`, error);
        }
    }
}

/** A sent withdraw is checked this long after it, then at twice the wait each time, up to WITHDRAW_CHECK_MAX_MS… */
const WITHDRAW_CHECK_FIRST_MS = 2_000;
const WITHDRAW_CHECK_MAX_MS = 60_000;
/** …for as long as a workflow over the cap could otherwise run on (MAX_WORK at a shared core's rate, with room). */
const WITHDRAW_WATCH_MS = 60 * 60_000;

/**
 * A terminate that was answered can still not be applied (the real extension applies it at its next poll of the
 * instance's control queue; a message lost with a crashed host or storage that came back older is never applied).
 * Until the workflow ends, it is read again with a growing wait, and while it still runs the terminate is sent again,
 * each time logged with its count. Best effort, after the answer; bounded by WITHDRAW_WATCH_MS.
 */
async function watchWithdrawal(deps: WorkflowDeps, workflowId: string): Promise<void> {
    const clock = deps.clock ?? systemClock;
    // Unreferenced on the system clock: a watch never keeps a process from exiting.
    const sleep = deps.clock ? (ms: number) => deps.clock?.sleep(ms) : (ms: number) => delay(ms, undefined, { ref: false });
    const started = clock.now();
    let resends = 0;
    for (let wait = WITHDRAW_CHECK_FIRST_MS; clock.now() - started < WITHDRAW_WATCH_MS; wait = Math.min(wait * 2, WITHDRAW_CHECK_MAX_MS)) {
        await sleep(wait);
        try {
            const now = await withTimeout(deps.client.getStatus(workflowId, { showInput: false }), BACKEND_CALL_TIMEOUT_MS, 'A status read');
            if (!(ACTIVE_STATUSES as readonly string[]).includes(now.runtimeStatus) && now.runtimeStatus !== 'Suspended') {
                if (resends > 0) deps.log.warn(`start: the withdraw of ${workflowId} was applied after ${resends + 1} terminates`);
                return;
            }
            resends++;
            deps.log.warn(`start: ${workflowId} still runs ${Math.round(clock.now() - started)} ms after its withdraw; terminate sent again (resend ${resends})`);
            await withTimeout(deps.client.terminate(workflowId, CAP_WITHDRAW_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        } catch (error) {
            if (isNotFoundError(error)) return;
            deps.log.warn(`start: the check of ${workflowId}'s withdraw failed; checked again later`, error);
        }
    }
    deps.log.error(`start: ${workflowId} still ran ${WITHDRAW_WATCH_MS / 60_000} min after its withdraw (${resends} terminates sent again); left to the strays' sweep`);
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
