import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { readTask, task2026, TASK_NOT_FOUND, taskOptions, toTask, toTaskResult } from '../taskModel';
import { requireTasksDeclared } from './tasksExtension';

/**
 * tasks/get, tasks/cancel and tasks/update of the 2026-07-28 Tasks extension, answered from the durable backend
 * through the caller's workflow service: a task is an orchestration of a served job (started by a task of either
 * era or by a plain call), its id the workflow id. Another tenant's task, an unknown one and one past its ttl are
 * all -32602, alike. Nothing is kept between requests.
 */

const taskIdParams = z.looseObject({ taskId: z.string().max(1000) });
const notFound = () => new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
const unavailable = () => new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE);

async function found(deps: ToolDeps, taskId: string) {
    const task = await readTask(deps, taskId, unavailable);
    if (task === undefined) throw notFound();
    return task;
}

export function registerTaskMethods(server: McpServer, deps: ToolDeps): void {
    // The task, and once completed the tool's result inlined (bounded, with its resource link): a complete result.
    server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        const { job, durable } = await found(deps, taskId);
        const options = taskOptions(deps);
        const task = task2026(toTask(job, taskId, durable, options));
        const result = task.status === 'completed' ? { result: { resultType: 'complete', ...toTaskResult(job, taskId, durable, options) } } : {};
        return { resultType: 'complete', ...task, ...result };
    });

    // Ends the workflow as a job's cancel tool does, waiting (bounded) for the end to show, so that a tasks/get after
    // the acknowledgement usually reads it cancelled; past that wait it is acknowledged all the same (cancellation is
    // cooperative).
    server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        const { job } = await found(deps, taskId);
        const outcome = await deps.workflows.cancel(taskId, job.tools.cancel.name, { signal: ctx.mcpReq.signal });
        if (outcome.kind === 'not_found') throw notFound();
        if (outcome.kind === 'unavailable') throw unavailable();
        return {};
    });

    // No job asks for input, so there is nothing to deliver: acknowledged for a task that exists.
    server.server.setRequestHandler('tasks/update', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        await found(deps, taskId);
        return {};
    });
}
