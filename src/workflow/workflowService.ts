import { BACKEND_CALL_TIMEOUT_MS, withTimeout } from './backendCall';
import { budgetedWait, type BudgetedWaitOutcome } from './budgetedWait';
import { cancelReason, isTerminal, runsOrchestrator, type DurableStatusLike } from './durableStatus';
import { isNotFoundError } from './durableHttpError';
import { isExpired } from './expiry';
import { isTenantWorkflowId } from './ids';
import { startOrFind, type Started, type StartRequest } from './startOrFind';
import type { StartRefusal } from './startRefusal';
import type { WorkflowDeps } from './workflowDeps';

/**
 * The workflows of one caller (tenant): every tool, task method and resource of both protocol eras goes
 * through this, so the rules live in one place. It checks every id against the tenant before the backend
 * sees it (another tenant's workflow is unknown, exactly like a missing one), bounds every backend call
 * in time, tells not-found from a failure by the backend's HTTP status, and hides expired tasks. Reads
 * change nothing. It knows nothing of MCP: what a client is told is the MCP layer's (src/mcp/).
 */

/** The backend failed or did not answer: the state is unknown (the cause is logged, never shown). */
export class WorkflowUnavailableError extends Error {
    override name = 'WorkflowUnavailableError';
}

/**
 * How long a cancellation waits for the end of the workflow to be visible. The real Durable extension
 * applies a terminate only when it next polls the instance's control queue (at most every
 * maxQueuePollingInterval, 2 s in host.json, once the queue has been idle) and then runs an episode that
 * writes the end; on an instance whose CPUs are busy that takes a few seconds more.
 */
export const CANCEL_WAIT_MS = 12_000;

/** tasks/list looks this far back; older workflows are still there to read by id. */
const LIST_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** One list call reads at most this many pages of the management API's list query… */
export const LIST_MAX_PAGES = 5;
/** …and stops paging after this long (a page in flight is then aborted): what it has, it answers with a token. */
const LIST_TIME_LIMIT_MS = 10_000;

export type CancelOutcome =
    | { kind: 'not_found' }
    /** The terminate request failed. */
    | { kind: 'unavailable' }
    /** The terminate was accepted, but no read after it succeeded. */
    | { kind: 'unreadable' }
    /** The last status read; `ended` is false when the end was not visible within CANCEL_WAIT_MS. */
    | { kind: 'read'; durable: DurableStatusLike; ended: boolean };

export interface WatchOptions {
    budgetMs: number;
    signal?: AbortSignal;
    /** Every status read, in order (progress notifications hang off this). */
    onValue?: (durable: DurableStatusLike) => void;
}

export interface ListedWorkflow {
    workflowId: string;
    durable: DurableStatusLike;
}

export class WorkflowService {
    constructor(private readonly deps: WorkflowDeps) {}

    /** True when the id is well formed and names one of this caller's workflows. */
    owns(workflowId: string): boolean {
        return isTenantWorkflowId(this.deps.tenant, workflowId);
    }

    /** Whether the caller can be told apart from others (list operations are offered only then). */
    get identified(): boolean {
        return this.deps.tenant.identified;
    }

    /**
     * One status read, without side effects: undefined for an unknown id, another tenant's, one past its
     * task ttl, or (given `orchestrator`) one of another kind. Rejects with WorkflowUnavailableError on any
     * other failure.
     */
    async read(workflowId: string, orchestrator?: string): Promise<DurableStatusLike | undefined> {
        try {
            const durable = await this.readRaw(workflowId);
            return durable === undefined || orchestrator === undefined || runsOrchestrator(durable, orchestrator) ? durable : undefined;
        } catch (error) {
            this.deps.log.error(`status read for ${workflowId} failed`, error);
            throw new WorkflowUnavailableError('The workflow status could not be read.');
        }
    }

    /**
     * Starts an orchestration for the caller within MAX_ACTIVE_WORKFLOWS, or with a key finds the one the
     * key started (startOrFind.ts).
     */
    start(request: StartRequest, idempotencyKey: string | undefined): Promise<Started | { refusal: StartRefusal }> {
        return startOrFind(this.deps, (id) => this.readRaw(id), request, idempotencyKey);
    }

    /**
     * Reads the workflow until it has ended or `budgetMs` runs out (budgetedWait.ts: quick at first, then
     * backing off). A read that fails or finds nothing yet (right after a start) only means less is known.
     */
    watch(workflowId: string, options: WatchOptions): Promise<BudgetedWaitOutcome<DurableStatusLike>> {
        return budgetedWait<DurableStatusLike>({
            read: async () => {
                try {
                    return await this.readRaw(workflowId);
                } catch (error) {
                    this.deps.log.warn(`status read for ${workflowId} failed`, error);
                    return undefined;
                }
            },
            isFinal: (durable) => isTerminal(durable.runtimeStatus),
            onValue: options.onValue,
            budgetMs: options.budgetMs,
            signal: options.signal,
            clock: this.deps.clock,
        });
    }

    /**
     * Ends the workflow as cancelled and waits (CANCEL_WAIT_MS) for the end to be visible: a terminate is
     * asynchronous (a queued message on the real extension). An ended workflow keeps its status. `by`
     * (who cancels) goes into the terminate reason. Given `orchestrator`, a workflow of another kind is
     * not_found and left alone (read first).
     */
    async cancel(workflowId: string, by: string, options: { signal?: AbortSignal; orchestrator?: string } = {}): Promise<CancelOutcome> {
        const { signal, orchestrator } = options;
        if (!this.owns(workflowId)) return { kind: 'not_found' };
        if (orchestrator !== undefined) {
            try {
                const durable = await this.readRaw(workflowId);
                if (durable === undefined || !runsOrchestrator(durable, orchestrator)) return { kind: 'not_found' };
            } catch (error) {
                this.deps.log.error(`status read for ${workflowId} failed`, error);
                return { kind: 'unavailable' };
            }
        }
        try {
            // Terminating an instance that already ended is accepted and changes nothing.
            await withTimeout(this.deps.client.terminate(workflowId, cancelReason(by)), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        } catch (error) {
            if (isNotFoundError(error)) return { kind: 'not_found' };
            this.deps.log.error(`terminate ${workflowId} failed`, error);
            return { kind: 'unavailable' };
        }
        const outcome = await this.watch(workflowId, { budgetMs: CANCEL_WAIT_MS, signal });
        if (outcome.last === undefined) {
            // Unknown now (purged, or expired, between the terminate and the read), or never read.
            const gone = await this.readRaw(workflowId).then((durable) => durable === undefined, () => false);
            return gone ? { kind: 'not_found' } : { kind: 'unreadable' };
        }
        return { kind: 'read', durable: outcome.last, ended: outcome.final };
    }

    /**
     * One page of the caller's workflows created in the last LIST_WINDOW_MS, at most `pageSize`, in the
     * backend's order (Azure Storage: by id; the local TypeScript engine: by creation time). Only the
     * caller's instances are read (the list query by the tenant's id prefix), so memory and time do not
     * grow with other tenants. At most LIST_MAX_PAGES backend pages within LIST_TIME_LIMIT_MS, then what it
     * has with the backend's continuation token: a page may hold fewer (expired ones are left out) and
     * still have a next one. Rejects with WorkflowUnavailableError when the query fails.
     */
    async list(pageSize: number, continuationToken?: string): Promise<{ workflows: ListedWorkflow[]; continuationToken?: string }> {
        const { tenant, client, log } = this.deps;
        const nowMs = (this.deps.wallNow ?? Date.now)();
        const workflows: ListedWorkflow[] = [];
        const stop = new AbortController();
        const deadline = Date.now() + LIST_TIME_LIMIT_MS;
        let token = continuationToken;
        try {
            for (let page = 0; page < LIST_MAX_PAGES && workflows.length < pageSize; page++) {
                const left = deadline - Date.now();
                if (left <= 0) break;
                const query = {
                    instanceIdPrefix: `${tenant.tag}-`,
                    top: pageSize - workflows.length,
                    createdTimeFrom: new Date(nowMs - LIST_WINDOW_MS),
                    showInput: true,
                    continuationToken: token,
                };
                const answer = await withTimeout(client.listInstances(query, stop.signal), left, 'The list query');
                for (const durable of answer.instances) {
                    const id = durable.instanceId;
                    if (id === undefined || !this.owns(id) || isExpired(durable, nowMs)) continue;
                    workflows.push({ workflowId: id, durable });
                }
                token = answer.continuationToken;
                if (token === undefined) break;
            }
        } catch (error) {
            log.error('the list query failed', error);
            throw new WorkflowUnavailableError('The workflow list could not be read.');
        } finally {
            // Nothing pages on in the background once the call has answered.
            stop.abort();
        }
        return token === undefined ? { workflows } : { workflows, continuationToken: token };
    }

    /** The read itself: the tenant check before the backend sees the id, 404 and expiry as unknown. */
    private async readRaw(workflowId: string): Promise<DurableStatusLike | undefined> {
        if (!this.owns(workflowId)) return undefined;
        let durable: DurableStatusLike;
        try {
            durable = await withTimeout(this.deps.client.getStatus(workflowId, { showInput: true }), BACKEND_CALL_TIMEOUT_MS, 'The workflow status read');
        } catch (error) {
            if (isNotFoundError(error)) return undefined;
            throw error;
        }
        return isExpired(durable, (this.deps.wallNow ?? Date.now)()) ? undefined : durable;
    }
}
