import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { ToolDeps } from '../deps';
import { progressReporter } from './progress';
import { registerWorkflowResource } from './resources';
import { registerBoundedTaskResult } from './tasks/boundedTaskResult';
import { DurableTaskStore } from './tasks/durableTaskStore';
import { registerStartMiningTaskTool } from './tasks/taskTool';
import { cancelMiningTool } from '../tools/cancelMining';
import { getMiningResultTool } from '../tools/getMiningResult';
import { startMiningTool } from '../tools/startMining';
import type { ToolDefinition } from '../tools/toolDefinition';
import { answerToolCalls, type CallableTool } from './toolCalls';
import type { WorkflowDeps } from '../../workflow/workflowDeps';
import { WorkflowService } from '../../workflow/workflowService';

export const SERVER_INFO = { name: 'mcp-durable-mining', version: '0.1.0' };

export const SERVER_INSTRUCTIONS =
    'Mining runs as a durable background workflow. Call start_mining; if it answers "running", ' +
    'poll get_mining_result with its workflow_id every poll_after_seconds until "completed" or "failed". ' +
    'Use cancel_mining only to stop work the user no longer wants.';

/**
 * What the server offers. tasks/list only to a caller that can be told apart from others (the
 * 2025-11-25 spec: a receiver that cannot identify requestors should not declare it). Resources are
 * neither listed nor subscribable: a stateless server has no stream to push updates on, and for the
 * same reason no listChanged (see withoutListChanged).
 */
export function serverCapabilities(deps: Pick<WorkflowDeps, 'tenant'>): ServerCapabilities {
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

/** The tools' dependencies for one request: the caller's workflows over the durable client. */
export function toolDeps(deps: WorkflowDeps): ToolDeps {
    return { workflows: new WorkflowService(deps), config: deps.config, log: deps.log, clock: deps.clock, wallNow: deps.wallNow };
}

function registerTool(server: McpServer, deps: ToolDeps, tool: ToolDefinition): CallableTool {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    const registered = server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, (args, extra) =>
        tool.call(args, { signal: extra.signal, reportProgress: progressReporter(extra, deps.log) }) as Promise<CallToolResult>
    );
    return { registered };
}

/**
 * A fresh 2025-era MCP server (SDK 1.32) with the three mining tools, the workflow resource and MCP
 * Tasks. Stateless HTTP builds one per request, so it holds nothing another request (or another
 * instance) would need: the task store is a view of the caller's workflows.
 */
export function buildMcpServer(workflowDeps: WorkflowDeps): McpServer {
    const deps = toolDeps(workflowDeps);
    const taskStore = new DurableTaskStore(deps);
    const server = new McpServer(SERVER_INFO, {
        capabilities: serverCapabilities(workflowDeps),
        instructions: SERVER_INSTRUCTIONS,
        jsonSchemaValidator,
        taskStore,
    });
    const tools = new Map([
        ['start_mining', registerStartMiningTaskTool(server, deps, startMiningTool(deps), taskStore)],
        ['get_mining_result', registerTool(server, deps, getMiningResultTool(deps))],
        ['cancel_mining', registerTool(server, deps, cancelMiningTool(deps))],
    ]);
    registerWorkflowResource(server, deps);
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
