import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { ToolDeps } from './deps';
import { registerWorkflowResource } from './resources';
import { registerBoundedTaskResult } from './tasks/boundedTaskResult';
import { DurableTaskStore } from './tasks/durableTaskStore';
import { registerCancelMining } from './tools/cancelMining';
import { registerGetMiningResult } from './tools/getMiningResult';
import { registerStartMining } from './tools/startMining';
import { answerToolCalls } from './toolCalls';

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
export function serverCapabilities(deps: Pick<ToolDeps, 'tenant'>): ServerCapabilities {
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

/**
 * A fresh MCP server with the three mining tools, the workflow resource and MCP Tasks. Stateless HTTP
 * builds one per request, so it holds nothing another request (or another instance) would need: the
 * task store is a view of the durable backend for this request's caller.
 */
export function buildMcpServer(deps: ToolDeps): McpServer {
    const taskStore = new DurableTaskStore(deps);
    const server = new McpServer(SERVER_INFO, {
        capabilities: serverCapabilities(deps),
        instructions: SERVER_INSTRUCTIONS,
        jsonSchemaValidator,
        taskStore,
    });
    const tools = new Map([
        ['start_mining', registerStartMining(server, deps, taskStore)],
        ['get_mining_result', registerGetMiningResult(server, deps)],
        ['cancel_mining', registerCancelMining(server, deps)],
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
