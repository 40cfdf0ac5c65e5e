import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Config } from '../../../src/config';
import { buildMcpServer } from '../../../src/mcp/era2025/server';
import { SHARED_TENANT } from '../../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './fakes';
import type { MemoryBackend } from './memoryBackend';

/**
 * An SDK client connected to `server` over an in-memory pair, added to `clients` (for the test file to
 * close), after tools/list: that makes the client validate structuredContent against each outputSchema
 * and lets it see which tools support tasks.
 */
export async function connectInMemory(server: Server, clients: Client[]) {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'unit', version: '1.0.0' });
    await client.connect(clientTransport);
    clients.push(client);
    const { tools } = await client.listTools();
    return { client, tools };
}

/**
 * The app's MCP server on `backend` (shared tenant, fake clock, the backend's own wall clock), with an SDK
 * client connected to it in memory: what most tests of the tools and tasks start from.
 */
export async function clientOnBackend(backend: MemoryBackend, config: Config, clients: Client[]): Promise<Client> {
    const server = buildMcpServer({ client: backend, config, log: new MemoryLog(), clock: new FakeClock(), tenant: SHARED_TENANT, wallNow: () => backend.now });
    return (await connectInMemory(server, clients)).client;
}
