import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { ToolDeps } from '../deps';
import { progressReporter } from '../progress';
import { jobTools, serverInstructions, toolDeps } from '../serverCore';
import type { ToolDefinition } from '../tools/toolDefinition';
import { registerWorkflowResources } from './resources';
import { registerBoundedTaskResult } from './tasks/boundedTaskResult';
import { DurableTaskStore } from './tasks/durableTaskStore';
import { registerStartTaskTool } from './tasks/taskTool';
import { answerToolCalls, type CallableTool } from './toolCalls';
import { SERVER_INFO } from '../../appInfo';
import type { JobDefinition } from '../../jobs/job';
import type { WorkflowDeps } from '../../workflow/workflowDeps';

/**
 * What the server offers. tasks/list only to a caller that can be told apart from others (the
 * 2025-11-25 spec: a receiver that cannot identify requestors should not declare it). Resources are
 * neither listed nor subscribable: a stateless server has no stream to push updates on, and for the
 * same reason no listChanged (see withoutListChanged).
 */
function serverCapabilities(deps: Pick<WorkflowDeps, 'tenant'>): ServerCapabilities {
    return {
        tools: {},
        resources: {},
        tasks: {
            ...(deps.tenant.identified ? { list: {} } : {}),
            cancel: {},
            requests: { tools: { call: {} } },
        },
    };
}

/**
 * One JSON Schema validator for every server: by default each McpServer builds its own Ajv
 * instance, which cost more than the rest of a tool call (BENCHMARKS.md, tool-call throughput).
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

function registerTool(server: McpServer, deps: ToolDeps, job: JobDefinition, tool: ToolDefinition): CallableTool {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    const registered = server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, (args, extra) =>
        tool.call(args, { signal: extra.signal, reportProgress: progressReporter(job, extra, deps.log) }) as Promise<CallToolResult>
    );
    return { registered };
}

/**
 * A fresh 2025-era MCP server (SDK 1.32) with each served job's three tools and workflow resource, and
 * MCP Tasks. Stateless HTTP builds one per request, so it holds nothing another request (or another
 * instance) would need: the task store is a view of the caller's workflows.
 */
export function buildMcpServer(workflowDeps: WorkflowDeps): McpServer {
    const deps = toolDeps(workflowDeps);
    const taskStore = new DurableTaskStore(deps);
    const server = new McpServer(SERVER_INFO, {
        capabilities: serverCapabilities(workflowDeps),
        instructions: serverInstructions(deps.jobs),
        jsonSchemaValidator,
        taskStore,
    });
    const tools = new Map<string, CallableTool>();
    for (const { job, start, get, cancel } of jobTools(deps)) {
        tools.set(start.name, registerStartTaskTool(server, deps, job, start, taskStore));
        tools.set(get.name, registerTool(server, deps, job, get));
        tools.set(cancel.name, registerTool(server, deps, job, cancel));
    }
    registerWorkflowResources(server, deps);
    registerBoundedTaskResult(server, deps, taskStore);
    answerToolCalls(server, tools);
    withoutListChanged(server);
    return server;
}

/**
 * McpServer adds `listChanged: true` to the tools and resources capabilities as it registers them, but a
 * stateless server has no stream to send notifications/tools/list_changed on: take the promise back. The
 * Server's registerCapabilities merges each capability's fields, and an undefined field is not sent.
 */
function withoutListChanged(server: McpServer): void {
    server.server.registerCapabilities({ tools: { listChanged: undefined }, resources: { listChanged: undefined } });
}
