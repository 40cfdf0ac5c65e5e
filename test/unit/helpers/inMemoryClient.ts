import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/**
 * An SDK client connected to `server` over an in-memory pair, added to `clients` (for the test file to
 * close), after tools/list: that makes the client validate structuredContent against each outputSchema
 * and lets it see which tools support tasks.
 */
export async function connectInMemory(server: McpServer, clients: Client[]) {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'unit', version: '1.0.0' });
    await client.connect(clientTransport);
    clients.push(client);
    const { tools } = await client.listTools();
    return { client, tools };
}
