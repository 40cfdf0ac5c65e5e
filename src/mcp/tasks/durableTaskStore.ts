import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { BACKEND_CALL_TIMEOUT_MS, CANCEL_WAIT_MS, type ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE, readDurableStatus, readStatusRetiringExpired } from '../tools/readStatus';
import { toTask, toTaskResult, type TaskMappingOptions } from './taskMapping';
import { decodeListCursor, encodeListCursor } from './listCursor';
import { budgetedWait } from '../../workflow/budgetedWait';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import { isExpired } from '../../workflow/expiry';
import { isTenantWorkflowId } from '../../workflow/ids';
import { CANCEL_REASON, isTerminal, type DurableStatusLike } from '../../workflow/status';

/**
 * The MCP TaskStore over the durable client: a task is a MineChain orchestration, its id the workflow
 * id. It keeps nothing in memory, so whichever instance a tasks/* request lands on answers it from the
 * backend. Built per request and closed over the caller's tenant, because the SDK hands a store only a
 * session id, which stateless HTTP never has: another tenant's task is unknown, exactly like a missing one.
 *
 * In SDK 1.32 the Protocol answers tasks/get, tasks/result, tasks/list and tasks/cancel straight from
 * this store; start_mining creates the tasks (it starts the workflow itself, see startMining.ts).
 */

/** tasks/list looks this far back; older tasks are still there for tasks/get. */
export const LIST_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const LIST_PAGE_SIZE = 50;
/** One tasks/list call reads at most this many pages of the management API's list query… */
export const LIST_MAX_PAGES = 5;
/** …and stops paging after this long (a page in flight is then aborted): what it has, it answers with a cursor. */
export const LIST_TIME_LIMIT_MS = 10_000;

export const TASK_NOT_FOUND = 'Task not found';

export const LIST_NEEDS_IDENTITY =
    'tasks/list is offered only to callers the server can tell apart (App Service Authentication); use tasks/get with a task id.';

/** A working task's statusMessage after tasks/cancel, while the end of its workflow is not visible yet. */
export const CANCEL_NOT_VISIBLE = 'Cancellation requested; the workflow has not stopped yet. Poll tasks/get until the task is cancelled.';

export class DurableTaskStore implements TaskStore {
    /** Tasks this request asked to cancel (the store lives for one request, so for the SDK's read-back). */
    private readonly cancelRequested = new Set<string>();

    constructor(private readonly deps: ToolDeps) {}

    private options(): TaskMappingOptions {
        const { config } = this.deps;
        return { pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs: this.now() };
    }

    private now(): number {
        return (this.deps.wallNow ?? Date.now)();
    }

    /** The caller's task, or undefined; a backend failure becomes an error with a safe message. */
    private async read(taskId: string): Promise<DurableStatusLike | undefined> {
        // Checked before the backend sees it: the durable client puts ids into URLs.
        if (!isTenantWorkflowId(this.deps.tenant, taskId)) return undefined;
        try {
            return await readStatusRetiringExpired(this.deps, taskId);
        } catch (error) {
            this.deps.log.error(`tasks: status read for ${taskId} failed`, error);
            throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
        }
    }

    /** Not used: start_mining starts the workflow and reads its task back (a task must exist durably first). */
    async createTask(): Promise<Task> {
        throw new Error('Mining tasks are created by a task-augmented start_mining call.');
    }

    async getTask(taskId: string): Promise<Task | null> {
        const durable = await this.read(taskId);
        if (durable === undefined) return null;
        const task = toTask(taskId, durable, this.options());
        return task.status === 'working' && this.cancelRequested.has(taskId) ? { ...task, statusMessage: CANCEL_NOT_VISIBLE } : task;
    }

    async getTaskResult(taskId: string): Promise<CallToolResult> {
        const durable = await this.read(taskId);
        if (durable === undefined) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        // The SDK asks only once the task is terminal; a race with tasks/cancel is answered honestly.
        if (!isTerminal(durable.runtimeStatus)) throw new McpError(ErrorCode.InvalidRequest, 'The task has not ended yet.');
        return toTaskResult(taskId, durable, this.options());
    }

    /** Not used: the orchestration's output is the result. */
    async storeTaskResult(): Promise<void> {
        throw new Error('A mining task stores its own result when its workflow ends.');
    }

    /**
     * The SDK calls this only for tasks/cancel (with 'cancelled'): it ends the workflow as cancel_mining
     * does, then waits (CANCEL_WAIT_MS, sized for the real extension) so that the task the SDK reads back
     * already shows the end. If the end is not visible by then, the task read back is still working and
     * its statusMessage says that the cancellation was requested and has not taken effect yet.
     */
    async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
        if (status !== 'cancelled') throw new Error(`A mining task's status follows its workflow; it cannot be set to ${status}.`);
        if (!isTenantWorkflowId(this.deps.tenant, taskId)) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        const { client, log, clock } = this.deps;
        try {
            await withTimeout(client.terminate(taskId, CANCEL_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        } catch (error) {
            if (isNotFoundError(error)) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
            log.error(`tasks/cancel: terminate ${taskId} failed`, error);
            throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
        }
        this.cancelRequested.add(taskId);
        await budgetedWait<DurableStatusLike>({
            read: () => readDurableStatus(this.deps, taskId).catch(() => undefined),
            isFinal: (durable) => isTerminal(durable.runtimeStatus),
            budgetMs: CANCEL_WAIT_MS,
            clock,
        });
    }

    /**
     * The caller's tasks, at most LIST_PAGE_SIZE per page, in the backend's order (Azure Storage: by id;
     * the local TypeScript engine: by creation time). Only the caller's instances are read: the management
     * API's list query by the tenant's id prefix, created in the last LIST_WINDOW_MS, so the memory and time
     * of a call do not grow with other tenants. A call reads at most LIST_MAX_PAGES pages within
     * LIST_TIME_LIMIT_MS, then answers what it has with a cursor (the backend's continuation token), so a
     * page may hold fewer tasks than the page size (expired tasks are left out) and still have a next one.
     */
    async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
        const { tenant, client, log } = this.deps;
        // The server does not declare tasks.list for such callers, but the SDK routes tasks/list anyway.
        if (!tenant.identified) throw new Error(LIST_NEEDS_IDENTITY);
        let token: string | undefined;
        if (cursor !== undefined) {
            const decoded = decodeListCursor(cursor);
            if (decoded === undefined) throw new Error('Invalid cursor.');
            token = decoded.token;
        }
        const nowMs = this.now();
        const options = this.options();
        const tasks: Task[] = [];
        const stop = new AbortController();
        const deadline = Date.now() + LIST_TIME_LIMIT_MS;
        try {
            for (let page = 0; page < LIST_MAX_PAGES && tasks.length < LIST_PAGE_SIZE; page++) {
                const left = deadline - Date.now();
                if (left <= 0) break;
                const answer = await withTimeout(
                    client.listInstances(
                        {
                            instanceIdPrefix: `${tenant.tag}-`,
                            top: LIST_PAGE_SIZE - tasks.length,
                            createdTimeFrom: new Date(nowMs - LIST_WINDOW_MS),
                            showInput: true,
                            continuationToken: token,
                        },
                        stop.signal
                    ),
                    left,
                    'The task list query'
                );
                for (const durable of answer.instances) {
                    const id = durable.instanceId;
                    if (id === undefined || !isTenantWorkflowId(tenant, id) || isExpired(durable, nowMs)) continue;
                    tasks.push(toTask(id, durable, options));
                }
                token = answer.continuationToken;
                if (token === undefined) break;
            }
        } catch (error) {
            log.error('tasks/list: the list query failed', error);
            throw new Error(BACKEND_UNAVAILABLE);
        } finally {
            // Nothing pages on in the background once the call has answered.
            stop.abort();
        }
        return token === undefined ? { tasks } : { tasks, nextCursor: encodeListCursor({ token }) };
    }
}
