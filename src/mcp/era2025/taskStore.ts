import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { TASK_NOT_FOUND, toTask, toTaskResult, type TaskMappingOptions } from '../taskModel';
import { decodeListCursor, encodeListCursor } from './listCursor';
import { jobOf, type JobDefinition } from '../../jobs/job';
import { isTerminal, type DurableStatusLike } from '../../workflow/durableStatus';
import { WorkflowUnavailableError } from '../../workflow/workflowService';

/**
 * The MCP TaskStore (2025-11-25) over the workflow service: a task is an orchestration of a served job
 * (its status names the orchestrator), its id the workflow id. It keeps nothing in memory, so whichever instance a tasks/* request lands on answers it
 * from the backend. Built per request over the caller's workflows, because the SDK hands a store only a
 * session id, which stateless HTTP never has: another tenant's task is unknown, exactly like a missing one.
 *
 * In SDK 1.32 the Protocol answers tasks/get, tasks/result, tasks/list and tasks/cancel straight from
 * this store; a job's start tool creates the tasks (it starts the workflow itself, see ../sdk/toolCall2025.ts).
 */

export const LIST_PAGE_SIZE = 50;

const LIST_NEEDS_IDENTITY =
    'tasks/list is offered only to callers the server can tell apart (App Service Authentication); use tasks/get with a task id.';

/** A working task's statusMessage after tasks/cancel, while the end of its workflow is not visible yet. */
export const CANCEL_NOT_VISIBLE = 'Cancellation requested; the workflow has not stopped yet. Poll tasks/get until the task is cancelled.';

export class DurableTaskStore implements TaskStore {
    /** Tasks this request asked to cancel (the store lives for one request, so for the SDK's read-back). */
    private readonly cancelRequested = new Set<string>();

    constructor(private readonly deps: ToolDeps) {}

    private options(): TaskMappingOptions {
        const { config } = this.deps;
        return { pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs: (this.deps.wallNow ?? Date.now)() };
    }

    /** The caller's task of a served job, or undefined; a backend failure becomes an error with a safe message. */
    private async read(taskId: string): Promise<{ job: JobDefinition; durable: DurableStatusLike } | undefined> {
        let durable;
        try {
            durable = await this.deps.workflows.read(taskId);
        } catch (error) {
            if (error instanceof WorkflowUnavailableError) throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
            throw error;
        }
        const job = durable === undefined ? undefined : jobOf(this.deps.jobs, durable.name);
        return job === undefined || durable === undefined ? undefined : { job, durable };
    }

    /** Not used: a job's start tool starts the workflow and reads its task back (a task must exist durably first). */
    async createTask(): Promise<Task> {
        throw new Error('Tasks are created by a task-augmented call of a start tool.');
    }

    async getTask(taskId: string): Promise<Task | null> {
        const found = await this.read(taskId);
        if (found === undefined) return null;
        const task = toTask(found.job, taskId, found.durable, this.options());
        return task.status === 'working' && this.cancelRequested.has(taskId) ? { ...task, statusMessage: CANCEL_NOT_VISIBLE } : task;
    }

    async getTaskResult(taskId: string): Promise<CallToolResult> {
        const found = await this.read(taskId);
        if (found === undefined) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        // The SDK asks only once the task is terminal; a race with tasks/cancel is answered honestly.
        if (!isTerminal(found.durable.runtimeStatus)) throw new McpError(ErrorCode.InvalidRequest, 'The task has not ended yet.');
        return toTaskResult(found.job, taskId, found.durable, this.options());
    }

    /** Not used: the orchestration's output is the result. */
    async storeTaskResult(): Promise<void> {
        throw new Error('A task stores its own result when its workflow ends.');
    }

    /**
     * The SDK calls this only for tasks/cancel (with 'cancelled'): it ends the workflow as a job's cancel
     * tool does (the service waits until the end shows, or CANCEL_WAIT_MS), so that the task the SDK reads back
     * already shows the end. If it does not yet, the task read back is still working and its
     * statusMessage says that the cancellation was requested and has not taken effect yet.
     */
    async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
        if (status !== 'cancelled') throw new Error(`A task's status follows its workflow; it cannot be set to ${status}.`);
        const found = await this.read(taskId);
        if (found === undefined) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        const outcome = await this.deps.workflows.cancel(taskId, found.job.tools.cancel.name);
        if (outcome.kind === 'not_found') throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
        if (outcome.kind === 'unavailable') throw new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);
        this.cancelRequested.add(taskId);
    }

    /** The caller's tasks, a page at a time (WorkflowService.list: by the tenant's id prefix, bounded). */
    async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
        // The server does not declare tasks.list for such callers, but the SDK routes tasks/list anyway.
        if (!this.deps.workflows.identified) throw new Error(LIST_NEEDS_IDENTITY);
        let token: string | undefined;
        if (cursor !== undefined) {
            const decoded = decodeListCursor(cursor);
            if (decoded === undefined) throw new Error('Invalid cursor.');
            token = decoded.token;
        }
        let page;
        try {
            page = await this.deps.workflows.list(LIST_PAGE_SIZE, token);
        } catch (error) {
            if (error instanceof WorkflowUnavailableError) throw new Error(BACKEND_UNAVAILABLE);
            throw error;
        }
        const options = this.options();
        // Each workflow through its own job; one of a job not served is left out.
        const tasks = page.workflows.flatMap(({ workflowId, durable }) => {
            const job = jobOf(this.deps.jobs, durable.name);
            return job === undefined ? [] : [toTask(job, workflowId, durable, options)];
        });
        return page.continuationToken === undefined ? { tasks } : { tasks, nextCursor: encodeListCursor({ token: page.continuationToken }) };
    }
}
