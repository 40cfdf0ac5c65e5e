import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { readTask, TASK_NOT_FOUND, taskOptions, toTask, toTaskResult } from '../taskModel';
import { decodeListCursor, encodeListCursor } from './listCursor';
import { jobOf } from '../../jobs/job';
import { isTerminal } from '../../workflow/durableStatus';
import { WorkflowUnavailableError } from '../../workflow/workflowService';

/**
 * The MCP TaskStore (2025-11-25) over the workflow service: a task is an orchestration of a served job, its id the
 * workflow id. Built per request over the caller's workflows, because the SDK hands a store only a session id, which
 * stateless HTTP never has: another tenant's task is unknown, exactly like a missing one. It keeps nothing, so any
 * instance answers any tasks/* request. SDK 1.32's Protocol answers tasks/get, tasks/list and tasks/cancel straight
 * from it (tasks/result: ../sdk/boundedTaskResult.ts); a job's start tool creates the tasks (../sdk/toolCall2025.ts).
 */

export const LIST_PAGE_SIZE = 50;

const LIST_NEEDS_IDENTITY =
    'tasks/list is offered only to callers the server can tell apart (App Service Authentication); use tasks/get with a task id.';

/** A working task's statusMessage after tasks/cancel, while the end of its workflow is not visible yet. */
export const CANCEL_NOT_VISIBLE = 'Cancellation requested; the workflow has not stopped yet. Poll tasks/get until the task is cancelled.';

const notFound = () => new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND);
const unavailable = () => new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE);

export class DurableTaskStore implements TaskStore {
    /** Tasks this request asked to cancel (the store lives for one request, so for the SDK's read-back). */
    private readonly cancelRequested = new Set<string>();

    constructor(private readonly deps: ToolDeps) {}

    /** Not used: a start tool starts the workflow and reads its task back (a task must exist durably first). */
    async createTask(): Promise<Task> {
        throw new Error('Tasks are created by a task-augmented call of a start tool.');
    }

    async getTask(taskId: string): Promise<Task | null> {
        const found = await readTask(this.deps, taskId, unavailable);
        if (found === undefined) return null;
        const task = toTask(found.job, taskId, found.durable, taskOptions(this.deps));
        return task.status === 'working' && this.cancelRequested.has(taskId) ? { ...task, statusMessage: CANCEL_NOT_VISIBLE } : task;
    }

    async getTaskResult(taskId: string): Promise<CallToolResult> {
        const found = await readTask(this.deps, taskId, unavailable);
        if (found === undefined) throw notFound();
        // The SDK asks only once the task is terminal; a race with tasks/cancel is answered honestly.
        if (!isTerminal(found.durable.runtimeStatus)) throw new McpError(ErrorCode.InvalidRequest, 'The task has not ended yet.');
        return toTaskResult(found.job, taskId, found.durable, taskOptions(this.deps));
    }

    /** Not used: the orchestration's output is the result. */
    async storeTaskResult(): Promise<void> {
        throw new Error('A task stores its own result when its workflow ends.');
    }

    /**
     * Only for tasks/cancel: ends the workflow as a job's cancel tool does (waiting, bounded, for the end to show), so
     * the task the SDK reads back usually shows it; if not yet, that task's statusMessage says so.
     */
    async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
        if (status !== 'cancelled') throw new Error(`A task's status follows its workflow; it cannot be set to ${status}.`);
        const found = await readTask(this.deps, taskId, unavailable);
        if (found === undefined) throw notFound();
        const outcome = await this.deps.workflows.cancel(taskId, found.job.tools.cancel.name);
        if (outcome.kind === 'not_found') throw notFound();
        if (outcome.kind === 'unavailable') throw unavailable();
        this.cancelRequested.add(taskId);
    }

    /** The caller's tasks, a page at a time (WorkflowService.list: by the tenant's id prefix, bounded). */
    async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
        // The server does not declare tasks.list for such callers, but the SDK routes tasks/list anyway.
        if (!this.deps.workflows.identified) throw new Error(LIST_NEEDS_IDENTITY);
        const token = cursor === undefined ? undefined : decodeListCursor(cursor)?.token;
        if (cursor !== undefined && token === undefined) throw new Error('Invalid cursor.');
        const page = await this.deps.workflows.list(LIST_PAGE_SIZE, token).catch((error: unknown) => {
            throw error instanceof WorkflowUnavailableError ? new Error(BACKEND_UNAVAILABLE) : error;
        });
        const options = taskOptions(this.deps);
        // Each workflow through its own job; one of a job not served is left out.
        const tasks = page.workflows.flatMap(({ workflowId, durable }) => {
            const job = jobOf(this.deps.jobs, durable.name);
            return job === undefined ? [] : [toTask(job, workflowId, durable, options)];
        });
        return page.continuationToken === undefined ? { tasks } : { tasks, nextCursor: encodeListCursor({ token: page.continuationToken }) };
    }
}
