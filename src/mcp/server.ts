import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { ToolDeps } from './deps';
import { registerCancelMining } from './tools/cancelMining';
import { registerGetMiningResult } from './tools/getMiningResult';
import { registerStartMining } from './tools/startMining';

export const SERVER_INFO = { name: 'mcp-durable-mining', version: '0.1.0' };

export const SERVER_INSTRUCTIONS =
    'Mining runs as a durable background workflow. Call start_mining; if it answers "running", ' +
    'poll get_mining_result with its workflow_id every poll_after_seconds until "completed" or "failed". ' +
    'Use cancel_mining only to stop work the user no longer wants.';

/**
 * A fresh MCP server with the three mining tools. Stateless HTTP builds one per request, so it holds
 * nothing another request (or another instance) would need.
 */
/**
 * One JSON Schema validator for every server: by default each McpServer builds its own Ajv
 * instance, which cost more than the rest of a tool call (BENCHMARKS.md, tool-call throughput).
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export function buildMcpServer(deps: ToolDeps): McpServer {
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS, jsonSchemaValidator });
    registerStartMining(server, deps);
    registerGetMiningResult(server, deps);
    registerCancelMining(server, deps);
    return server;
}
