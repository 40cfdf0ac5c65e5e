import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { TASK_NOT_FOUND } from '../taskModel';
import { detailedTaskOf } from './detailedTask';
import { requireTasksDeclared } from './tasksExtension';
import { jobOf, type JobDefinition } from '../../jobs/job';
import type { DurableStatusLike } from '../../workflow/durableStatus';
import { WorkflowUnavailableError } from '../../workflow/workflowService';

/**
 * tasks/get, tasks/cancel and tasks/update of the 2026-07-28 Tasks extension, answered from the durable
 * backend through the caller's workflow service: a task is an orchestration of a served job (any of them:
 * one started by a 2026 task, by a 2025-11-25 task or by a plain call of either era), its id the workflow id.
 * Another tenant's task, an unknown one and one past its ttl are all -32602, alike. Nothing is kept
 * between requests.
 */

const taskIdParams = z.looseObject({ taskId: z.string().max(1000) });

function notFound(): ProtocolError {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
}

function unavailable(): ProtocolError {
    return new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE);
}

/** The caller's workflow behind a task id, and its job, or -32602; a backend failure is -32603 with a safe message. */
async function readTask(deps: ToolDeps, taskId: string): Promise<{ job: JobDefinition; durable: DurableStatusLike }> {
    let durable;
    try {
        durable = await deps.workflows.read(taskId);
    } catch (error) {
        if (error instanceof WorkflowUnavailableError) throw unavailable();
        throw error;
    }
    const job = durable === undefined ? undefined : jobOf(deps.jobs, durable.name);
    if (durable === undefined || job === undefined) throw notFound();
    return { job, durable };
}

export function registerTaskMethods(server: McpServer, deps: ToolDeps): void {
    const { config } = deps;
    const options = () => ({ pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs: (deps.wallNow ?? Date.now)() });

    server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        const { job, durable } = await readTask(deps, taskId);
        return { resultType: 'complete', ...detailedTaskOf(job, taskId, durable, options()) };
    });

    // Ends the workflow as a job's cancel tool does, waiting (bounded) for the end to show, so that a tasks/get
    // after the acknowledgement usually reads it cancelled; past that wait it is acknowledged all the same
    // (cancellation is cooperative, and tasks/get shows the end once the workflow has stopped).
    server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        const { job } = await readTask(deps, taskId);
        const outcome = await deps.workflows.cancel(taskId, job.tools.cancel.name, { signal: ctx.mcpReq.signal });
        if (outcome.kind === 'not_found') throw notFound();
        if (outcome.kind === 'unavailable') throw unavailable();
        return {};
    });

    // No job asks for input, so there is nothing to deliver: acknowledged for a task that exists.
    server.server.setRequestHandler('tasks/update', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        await readTask(deps, taskId);
        return {};
    });
}
