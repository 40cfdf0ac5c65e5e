import { McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { catalogFor, offeredTools, uiToolMeta, type Catalog, type ServedTool } from '../catalog';
import { toolDeps, type ToolDeps } from '../deps';
import { progressReporter } from '../progress';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { argumentsSchema, resultSchema } from '../sdk/standardSchema';
import { checkArguments } from '../tools/argumentErrors';
import { running, toWorkflowStatus } from '../statusObjects';
import { task2026, taskAsStarted, taskOptions, toTask } from '../taskModel';
import { statusResult, toolError } from '../toolResults';
import { commitment, startTask, withCost } from '../tools/startTool';
import type { ToolCall } from '../tools/toolDefinition';
import { workflowUriTemplate } from '../workflowLink';
import { readWorkflowResource, workflowResourceMetadata } from '../workflowResource';
import { registerTaskMethods } from './taskMethods';
import { clientDeclaresTasks, TASKS_EXTENSION } from './tasksExtension';
import { UI_EXTENSION } from '../uiExtension';
import { viewContents, viewMetadata } from '../workflowView';
import { SERVER_INFO } from '../../appInfo';
import type { StartArgs } from '../../jobs/job';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { WorkflowDeps } from '../../workflow/workflowDeps';

/**
 * The 2026-07-28 server (SDK v2's McpServer): the same tool definitions, workflow service and resources as the
 * 2025-era server (../era2025/server.ts), and the Tasks extension in place of the 2025-11-25 tasks. SDK v2's handler
 * builds one per request; the schemas it is given are built once per configuration (../sdk/standardSchema.ts).
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

/**
 * Tools and resources are fixed, and a stateless server has no stream to announce changes on. Explicit, because
 * McpServer otherwise advertises listChanged: true as soon as a tool or resource is registered.
 */
const MODERN_CAPABILITIES = {
    tools: { listChanged: false },
    resources: { listChanged: false },
    extensions: { [TASKS_EXTENSION]: {} },
};

/** The same, with MCP Apps, to a client that declared it (./appsExtension.ts). */
const WITH_VIEWS = { ...MODERN_CAPABILITIES, extensions: { ...MODERN_CAPABILITIES.extensions, [UI_EXTENSION]: {} } };

const schemas = new WeakMap<Catalog, Map<string, { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON }>>();

/** Each tool's schemas as McpServer takes them, once per configuration. */
function schemasOf(catalog: Catalog) {
    let found = schemas.get(catalog);
    if (found === undefined) {
        found = new Map(catalog.tools.map(({ definition }) => [definition.name, { input: argumentsSchema(definition.inputSchema), output: resultSchema(definition.outputSchema) }]));
        schemas.set(catalog, found);
    }
    return found;
}

/** What a tool's handler gets of its request, from SDK v2's handler context. */
function toolCallOf(served: ServedTool, ctx: ServerContext, deps: ToolDeps, forView: boolean): ToolCall {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const extra = { ...(progressToken === undefined ? {} : { _meta: { progressToken } }), sendNotification: ctx.mcpReq.notify.bind(ctx.mcpReq) };
    return { signal: ctx.mcpReq.signal, reportProgress: progressReporter(served.job, extra, deps.log), forView };
}

/**
 * A start tool's answer to a client that declared the Tasks extension: the flat task result, once the workflow exists
 * durably, carrying the tool's own answer as of now as content and structuredContent (SDK v2 holds every start result
 * to the outputSchema, and a client that reads the content still learns the workflow_id to poll with the get tool).
 */
async function startAsTask({ job }: ServedTool, deps: ToolDeps, args: StartArgs): Promise<CallToolResult> {
    const started = await startTask(job, deps, args, TASK_TTL_MS);
    // A refusal (a cap, a reused key, the backend) is the tool's own message: no task exists.
    if ('error' in started) return toolError(started.error) as CallToolResult;
    const { workflowId, ttlMs, plan, durable } = started;
    const options = taskOptions(deps);
    const { pollAfterSeconds, maxResultChars } = deps.config;
    const task = durable === undefined ? taskAsStarted(job, workflowId, ttlMs, plan.initialProgress, options) : toTask(job, workflowId, durable, options);
    const status =
        durable === undefined
            ? running(job, workflowId, pollAfterSeconds, plan.initialProgress)
            : toWorkflowStatus(job, workflowId, durable, { pollAfterSeconds, initialProgress: plan.initialProgress });
    const answer = statusResult(job, withCost(job, status, plan.input, plan.cost), maxResultChars);
    // What the run committed in _meta, as for a 2025 task; the TypeScript type of a tool result does not know resultType.
    const committed = commitment(job, plan.input, plan.cost);
    const meta = Object.keys(committed).length === 0 ? {} : { _meta: committed };
    return { ...answer, resultType: 'task', ...task2026(task), ...meta } as unknown as CallToolResult;
}

/** A 2026-07-28 server for one request; to a client that declared MCP Apps (`ui`), with each job's view. */
export function buildModernServer(workflowDeps: WorkflowDeps, ui = false): McpServer {
    const catalog = catalogFor(workflowDeps.config);
    const deps = toolDeps(workflowDeps);
    const server = new McpServer(SERVER_INFO, { capabilities: ui ? WITH_VIEWS : MODERN_CAPABILITIES, instructions: catalog.instructions });
    const listed = schemasOf(catalog);
    for (const served of offeredTools(catalog, ui)) {
        const { name, title, description, inputSchema, annotations } = served.definition;
        const { input, output } = listed.get(name)!;
        // The arguments are checked here, not by McpServer, for the message a model reads (../sdk/standardSchema.ts).
        const uiMeta = ui ? uiToolMeta(served) : undefined;
        const meta = uiMeta === undefined ? {} : { _meta: uiMeta };
        server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations, ...meta }, async (raw, ctx) => {
            const checked = await checkArguments(inputSchema, raw);
            if ('error' in checked) return checked.error as CallToolResult;
            // A client that declared the Tasks extension gets a task of a start tool; any other the plain budgeted call.
            if (served.starts && clientDeclaresTasks(ctx)) return startAsTask(served, deps, checked.args as StartArgs);
            return (await served.definition.call(checked.args, deps, toolCallOf(served, ctx, deps, ui))) as CallToolResult;
        });
    }
    for (const job of catalog.jobs) {
        server.registerResource(job.resource.name, new ResourceTemplate(workflowUriTemplate(job), { list: undefined }), workflowResourceMetadata(job), (uri, variables) =>
            readWorkflowResource(job, deps, uri, variables.workflow_id, RESOURCE_ERRORS)
        );
    }
    // Fixed URIs, so resources/list lists them: to a client that declared MCP Apps only.
    if (ui) for (const view of catalog.views) server.registerResource(`${view.job.name}-workflow-view`, view.uri, viewMetadata(view), () => viewContents(view));
    registerTaskMethods(server, deps);
    return server;
}
