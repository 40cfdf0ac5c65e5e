import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import { BACKEND_CALL_TIMEOUT_MS, type ToolDeps } from '../deps';
import { TASK_NOT_FOUND } from '../tasks/durableTaskStore';
import { BACKEND_UNAVAILABLE, readStatusRetiringExpired } from '../tools/readStatus';
import { detailedTaskOf } from './detailedTask';
import { requireTasksDeclared } from './tasksExtension';
import { isNotFoundError, withTimeout } from '../../workflow/client';
import { isTenantWorkflowId } from '../../workflow/ids';
import { CANCEL_REASON, type DurableStatusLike } from '../../workflow/status';

/**
 * tasks/get, tasks/cancel and tasks/update of the 2026-07-28 Tasks extension, answered from the durable
 * backend: a task is a MineChain orchestration (any of them: one started by a 2026 task, by a 2025-11-25
 * task or by a plain call of either era), its id the workflow id. Another tenant's task, an unknown one
 * and one past its ttl are all -32602, alike. Nothing is kept between requests.
 */

const taskIdParams = z.looseObject({ taskId: z.string().max(1000) });

function notFound(): ProtocolError {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
}

/** The caller's workflow behind a task id, or -32602; a backend failure is -32603 with a safe message. */
async function readTask(deps: ToolDeps, taskId: string): Promise<DurableStatusLike> {
    // Checked before the backend sees it: the durable client puts ids into URLs.
    if (!isTenantWorkflowId(deps.tenant, taskId)) throw notFound();
    let durable;
    try {
        durable = await readStatusRetiringExpired(deps, taskId);
    } catch (error) {
        deps.log.error(`tasks: status read for ${taskId} failed`, error);
        throw new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE);
    }
    if (durable === undefined) throw notFound();
    return durable;
}

export function registerTaskMethods(server: McpServer, deps: ToolDeps): void {
    const { config, log } = deps;
    const options = () => ({ pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs: (deps.wallNow ?? Date.now)() });

    server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        const durable = await readTask(deps, taskId);
        return { resultType: 'complete', ...detailedTaskOf(taskId, durable, options()) };
    });

    // Acknowledged once the terminate is accepted: the end shows in tasks/get (cancelled) when the
    // workflow has stopped, as the extension allows (cancellation is cooperative and eventually consistent).
    server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        await readTask(deps, taskId);
        try {
            // Terminating an instance that already ended is accepted and changes nothing.
            await withTimeout(deps.client.terminate(taskId, CANCEL_REASON), BACKEND_CALL_TIMEOUT_MS, 'The terminate request');
        } catch (error) {
            if (isNotFoundError(error)) throw notFound();
            log.error(`tasks/cancel: terminate ${taskId} failed`, error);
            throw new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE);
        }
        return {};
    });

    // Mining never asks for input, so there is nothing to deliver: acknowledged for a task that exists.
    server.server.setRequestHandler('tasks/update', { params: taskIdParams }, async ({ taskId }, ctx) => {
        requireTasksDeclared(ctx);
        await readTask(deps, taskId);
        return {};
    });
}
