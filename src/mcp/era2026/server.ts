import { McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import type { ToolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { jobTools, serverInstructions, toolDeps } from '../serverCore';
import { running, toWorkflowStatus } from '../statusObjects';
import { taskAsStarted, toTask } from '../taskModel';
import { statusResult, toolError } from '../toolResults';
import { startTask, withCost } from '../tools/startTool';
import type { ToolDefinition } from '../tools/toolDefinition';
import { workflowUriTemplate } from '../workflowLink';
import { readWorkflowResource, workflowResourceMetadata } from '../workflowResource';
import { checkArguments, passThrough } from './argumentsInHandler';
import { toolCallOf } from './callExtra';
import { taskFieldsOf } from './detailedTask';
import { registerTaskMethods } from './taskMethods';
import { clientDeclaresTasks, TASKS_EXTENSION } from './tasksExtension';
import { SERVER_INFO } from '../../appInfo';
import type { JobDefinition, StartArgs } from '../../jobs/job';
import type { WorkflowDeps } from '../../workflow/workflowDeps';

/**
 * The 2026-07-28 server (SDK v2): the same tool definitions, workflow service and resources as the
 * 2025-era server (../era2025/server.ts), and the Tasks extension in place of the 2025-11-25 tasks. One per
 * request, holding nothing another request would need.
 */

/** The resource's two failures, as SDK v2 says them (a missing resource is -32602 in 2026-07-28). */
const RESOURCE_ERRORS = {
    notFound: (uri: URL) => new ResourceNotFoundError(uri.href),
    unavailable: () => new ProtocolError(ProtocolErrorCode.InternalError, BACKEND_UNAVAILABLE),
};

/**
 * How long a workflow started as a 2026 task is kept (its ttlMs; the extension lets the server choose).
 * Stored in the orchestration input, as a 2025-11-25 task's requested ttl is (../../workflow/expiry.ts).
 */
export const TASK_TTL_MS = 24 * 3600 * 1000;

/** Tools and resources are fixed, and a stateless server has no stream to announce changes on: no listChanged. */
const MODERN_CAPABILITIES = {
    // Explicit: McpServer would otherwise advertise listChanged: true as soon as a tool is registered.
    tools: { listChanged: false },
    resources: { listChanged: false },
    extensions: { [TASKS_EXTENSION]: {} },
};

/**
 * A start tool's answer to a client that declared the Tasks extension: the flat task result, once the
 * workflow exists durably. It also carries the tool's own answer as of now (the `running` status, or the
 * end a keyed call found), as content and structuredContent: SDK v2 holds every start result to the
 * tool's outputSchema, and a client that reads the content instead of the task still learns the
 * workflow_id to poll with the job's get tool.
 */
async function startAsTask(job: JobDefinition, deps: ToolDeps, toolName: string, args: StartArgs): Promise<CallToolResult> {
    const { config, log } = deps;
    const started = await startTask(job, deps, args, TASK_TTL_MS);
    // A refusal (a cap, a reused key, the backend) is the tool's own message: no task exists.
    if ('error' in started) return toolError(started.error) as CallToolResult;
    const { workflowId, ttlMs, plan } = started;
    // The task as the backend sees it (a keyed call may find one that already ended)...
    const durable = await deps.workflows.read(workflowId).catch((error: unknown) => {
        log.warn(`${toolName}: status read for ${workflowId} failed`, error);
        return undefined;
    });
    const nowMs = (deps.wallNow ?? Date.now)();
    // ...or, right after the start, as it was started.
    const task = taskFieldsOf(
        durable === undefined
            ? taskAsStarted(job, workflowId, ttlMs, plan.initialProgress, { pollAfterSeconds: config.pollAfterSeconds, nowMs })
            : toTask(job, workflowId, durable, { pollAfterSeconds: config.pollAfterSeconds, maxResultChars: config.maxResultChars, nowMs })
    );
    const status =
        durable === undefined
            ? running(job, workflowId, config.pollAfterSeconds, plan.initialProgress)
            : toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds: config.pollAfterSeconds, initialProgress: plan.initialProgress });
    const answer = statusResult(job, withCost(job, status, plan.cost), config.maxResultChars);
    // The extension's CreateTaskResult (what the run costs in _meta, as for a 2025 task); the TypeScript
    // type of a tool result does not know resultType.
    const meta = job.costField === undefined ? {} : { _meta: { [job.costField.name]: plan.cost } };
    return { ...answer, resultType: 'task', ...task, ...meta } as unknown as CallToolResult;
}

/** Registers a tool definition on SDK v2, its handler given the request as the definition wants it. */
function registerTool(
    server: McpServer,
    deps: ToolDeps,
    job: JobDefinition,
    tool: ToolDefinition,
    handler: (args: StartArgs, ctx: ServerContext) => Promise<unknown> = (args, ctx) => tool.call(args, toolCallOf(job, ctx, deps.log))
): void {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    // The arguments are checked here, not by McpServer, for the message a model reads (argumentsInHandler.ts).
    server.registerTool(name, { title, description, inputSchema: passThrough(inputSchema), outputSchema, annotations }, async (raw, ctx) => {
        const checked = await checkArguments(inputSchema, raw);
        if ('error' in checked) return checked.error as CallToolResult;
        return (await handler(checked.args as StartArgs, ctx)) as CallToolResult;
    });
}

export function buildModernServer(workflowDeps: WorkflowDeps): McpServer {
    const deps = toolDeps(workflowDeps);
    const server = new McpServer(SERVER_INFO, { capabilities: MODERN_CAPABILITIES, instructions: serverInstructions(deps.jobs) });

    for (const { job, start, get, cancel } of jobTools(deps)) {
        // A client that declared the Tasks extension gets a task; any other the plain budgeted call.
        registerTool(server, deps, job, start, (args, ctx) =>
            clientDeclaresTasks(ctx) ? startAsTask(job, deps, start.name, args) : start.call(args, toolCallOf(job, ctx, deps.log))
        );
        registerTool(server, deps, job, get);
        registerTool(server, deps, job, cancel);
    }

    for (const job of deps.jobs) {
        server.registerResource(
            job.resource.name,
            new ResourceTemplate(workflowUriTemplate(job), { list: undefined }),
            workflowResourceMetadata(job),
            (uri, variables) => readWorkflowResource(job, deps, uri, variables.workflow_id, RESOURCE_ERRORS)
        );
    }

    registerTaskMethods(server, deps);
    return server;
}
