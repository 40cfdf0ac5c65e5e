import { McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, type CallToolResult } from '@modelcontextprotocol/server';
import type { ToolDeps } from '../deps';
import { readWorkflowResource, workflowResourceDefinition } from '../resources';
import { SERVER_INFO, SERVER_INSTRUCTIONS } from '../server';
import { statusResult, toolError } from '../statusSchema';
import { DurableTaskStore } from '../tasks/durableTaskStore';
import { cancelMining, cancelMiningDefinition } from '../tools/cancelMining';
import { getMiningResult, getMiningResultDefinition } from '../tools/getMiningResult';
import { BACKEND_UNAVAILABLE, readDurableStatus } from '../tools/readStatus';
import { running, toWorkflowStatus } from '../../workflow/status';
import { startMiningCall, startMiningDefinition, startMiningTask } from '../tools/startMining';
import { callExtraOf } from './callExtra';
import { taskFieldsOf } from './detailedTask';
import { registerTaskMethods } from './taskMethods';
import { clientDeclaresTasks, TASKS_EXTENSION } from './tasksExtension';

/**
 * The 2026-07-28 server (SDK v2): the same three tools, resource and workflow code as the 2025-era one
 * (../server.ts), and the Tasks extension in place of the 2025-11-25 tasks. One per request, holding
 * nothing another request would need.
 */

/**
 * How long a workflow started as a 2026 task is kept (its ttlMs; the extension lets the server choose).
 * Stored in the orchestration input, as a 2025-11-25 task's requested ttl is (../../workflow/expiry.ts).
 */
export const TASK_TTL_MS = 24 * 3600 * 1000;

/** Tools and resources are fixed, and a stateless server has no stream to announce changes on: no listChanged. */
export const MODERN_CAPABILITIES = {
    // Explicit: McpServer would otherwise advertise listChanged: true as soon as a tool is registered.
    tools: { listChanged: false },
    resources: { listChanged: false },
    extensions: { [TASKS_EXTENSION]: {} },
};

/**
 * start_mining's answer to a client that declared the Tasks extension: the flat task result, once the
 * workflow exists durably. It also carries the tool's own answer as of now (the `running` status, or the
 * end a keyed call found), as content and structuredContent: the SDK holds every start_mining result to
 * the tool's outputSchema, and a client that reads the content instead of the task still learns the
 * workflow_id to poll with get_mining_result.
 */
async function startMiningAsTask(deps: ToolDeps, args: unknown): Promise<CallToolResult> {
    const { config, log } = deps;
    let created;
    try {
        created = await startMiningTask(deps, args, TASK_TTL_MS, new DurableTaskStore(deps));
    } catch (error) {
        // startMiningTask's refusals carry a message meant for the user (a cap, a reused key, the backend).
        return toolError(error instanceof Error ? error.message : String(error));
    }
    const task = taskFieldsOf(created.task);
    const { blocks } = startMiningDefinition(config).inputSchema.parse(args);
    const durable = await readDurableStatus(deps, task.taskId).catch((error: unknown) => {
        log.warn(`start_mining: status read for ${task.taskId} failed`, error);
        return undefined;
    });
    const status =
        durable === undefined
            ? running(task.taskId, config.pollAfterSeconds, { blocks_done: 0, blocks_total: blocks })
            : toWorkflowStatus(task.taskId, durable, { pollAfterSeconds: config.pollAfterSeconds, blocksTotal: blocks });
    const expected = created._meta?.expected_attempts;
    const answer = statusResult(typeof expected === 'number' ? { ...status, expected_attempts: expected } : status, config.maxResultChars);
    // The extension's CreateTaskResult; the TypeScript type of a tool result does not know resultType.
    return { ...answer, resultType: 'task', ...task, _meta: created._meta } as unknown as CallToolResult;
}

export function buildModernServer(deps: ToolDeps): McpServer {
    const server = new McpServer(SERVER_INFO, { capabilities: MODERN_CAPABILITIES, instructions: SERVER_INSTRUCTIONS });

    const { name: startName, ...start } = startMiningDefinition(deps.config);
    server.registerTool(startName, start, (args, ctx) =>
        clientDeclaresTasks(ctx) ? startMiningAsTask(deps, args) : startMiningCall(deps, args, callExtraOf(ctx))
    );
    const { name: getName, ...get } = getMiningResultDefinition;
    server.registerTool(getName, get, (args) => getMiningResult(deps, args));
    const { name: cancelName, ...cancel } = cancelMiningDefinition;
    server.registerTool(cancelName, cancel, (args, ctx) => cancelMining(deps, args, ctx.mcpReq.signal));

    const { name, uriTemplate, metadata } = workflowResourceDefinition;
    server.registerResource(name, new ResourceTemplate(uriTemplate, { list: undefined }), metadata, async (uri, variables) => {
        const read = await readWorkflowResource(deps, uri, variables.workflow_id);
        if (read.kind === 'unavailable') throw new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE);
        // Another tenant's workflow looks exactly like an unknown one.
        if (read.kind === 'not_found') throw new ResourceNotFoundError(uri.href);
        return { contents: read.contents };
    });

    registerTaskMethods(server, deps);
    return server;
}
