import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { budgetedWait } from './budgetedWait';
import { runsOrchestrator, type DurableStatusLike } from './durableStatus';
import { keyedWorkflowId, newWorkflowId } from './ids';
import type { StartRefusal } from './startRefusal';
import { admitStart, confirmStart, isWithdrawn, withdrawIfStarted } from './workCaps';
import type { WorkflowDeps } from './workflowDeps';

/**
 * A workflow a start may hand out; when the call started it, `confirmation` settles with the cap's
 * refusal if the workflow had to be withdrawn (workCaps.ts, confirmStart), else with undefined.
 */
export interface Started {
    workflowId: string;
    confirmation?: Promise<StartRefusal | undefined>;
}

/** How long a keyed start waits for the workflow its key names to be readable, to compare its arguments. */
export const KEYED_START_CHECK_MS = 5_000;

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

/** True when the workflow runs the same orchestrator with the same values as `request.input` in every `matchOn` field. */
function sameArguments(durable: DurableStatusLike, request: StartRequest): boolean {
    const stored = durable.input;
    if (typeof stored !== 'object' || stored === null || !runsOrchestrator(durable, request.orchestrator)) return false;
    return request.matchOn.every((field) => JSON.stringify((stored as Record<string, unknown>)[field]) === JSON.stringify(request.input[field]));
}

/**
 * Starts the workflow, or with an idempotency key finds the one the key already started. The key names
 * one workflow id per tenant, so a retry reads that id first and compares the arguments it was started
 * with. Two first calls racing on one key both try to start that id, and no backend tells the loser
 * reliably that it lost: on the real Durable extension (Azure Storage provider) concurrent starts on a new
 * id can all be accepted (202) while only the first one's input is kept and run, and a start on an id that
 * is running answers 409. So after its start, whatever the answer, a keyed call reads the workflow back and
 * hands it out only if it runs this call's arguments; otherwise the key was taken by other work.
 * The instance row the read shows is written by the accepted start itself, conditionally (only the first
 * writer of a new id, or of an ended id's row, succeeds), and it is that start's message that runs: so its
 * input, read right after the start, is already the input that runs, Pending or not.
 * The key is remembered as long as the workflow's history is kept.
 */
export async function startOrFind(
    deps: WorkflowDeps,
    read: ReadWorkflow,
    request: StartRequest,
    idempotencyKey: string | undefined
): Promise<Started | { refusal: StartRefusal }> {
    const { log, tenant } = deps;
    if (idempotencyKey === undefined) {
        const refused = await admitStart(deps);
        if (refused !== undefined) return { refusal: refused };
        const workflowId = newWorkflowId(tenant);
        try {
            await startNew(deps, workflowId, request);
        } catch (error) {
            log.error(`start: could not start ${request.orchestrator} ${workflowId}`, error);
            // A start that timed out may still be applied: it must not run unseen and uncounted.
            await withdrawIfStarted(deps, workflowId);
            return { refusal: { kind: 'start_failed' } };
        }
        return { workflowId, confirmation: confirmStart(deps, workflowId) };
    }

    const workflowId = keyedWorkflowId(tenant, idempotencyKey);
    const judge = (durable: DurableStatusLike): Started | { refusal: StartRefusal } =>
        sameArguments(durable, request) ? { workflowId } : { refusal: { kind: 'key_reused' } };
    try {
        const found = await read(workflowId);
        // A workflow the cap withdrew was never handed out: the key starts it again (a start on an ended id replaces it).
        if (found !== undefined && !isWithdrawn(found)) return judge(found);
    } catch (error) {
        log.error(`start: status read for ${workflowId} failed`, error);
        return { refusal: { kind: 'unavailable' } };
    }

    const refused = await admitStart(deps);
    if (refused !== undefined) return { refusal: refused };

    let startError: unknown;
    try {
        await startNew(deps, workflowId, request);
    } catch (error) {
        // Most likely another call with the same key started it first: the read below tells.
        startError = error;
    }
    const readOnce = async (): Promise<DurableStatusLike | undefined> => {
        try {
            return await read(workflowId);
        } catch (error) {
            log.warn(`start: status read for ${workflowId} failed`, error);
            return undefined;
        }
    };
    // A refused start leaves whatever refused it to be read at once; an accepted one is waited for, briefly.
    const stored =
        startError === undefined
            ? (await budgetedWait<DurableStatusLike>({ read: readOnce, isFinal: () => true, budgetMs: KEYED_START_CHECK_MS, clock: deps.clock })).last
            : await readOnce();
    if (stored !== undefined) {
        const judged = judge(stored);
        return 'refusal' in judged ? judged : { workflowId, confirmation: confirmStart(deps, workflowId) };
    }
    if (startError !== undefined) {
        log.error(`start: could not start ${request.orchestrator} ${workflowId}`, startError);
        return { refusal: { kind: 'start_failed' } };
    }
    log.error(`start: ${workflowId} was accepted but could not be read back within ${KEYED_START_CHECK_MS} ms`);
    return { refusal: { kind: 'unconfirmed' } };
}

async function startNew(deps: WorkflowDeps, workflowId: string, request: StartRequest): Promise<void> {
    const { orchestrator, input } = request;
    await withTimeout(deps.client.startNew(orchestrator, { instanceId: workflowId, input }), BACKEND_CALL_TIMEOUT_MS, 'The start request');
}
