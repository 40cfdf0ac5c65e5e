import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { repoRoot, spawnHost, type SpawnedHost } from '../support/spawnHost';
import { uniqueHubName } from '../support/testAzurite';

/**
 * What a client of the 2026-07-28 revision gets from this server (built on SDK 1.32, whose newest
 * revision is 2025-11-25): the SDK v2 client, `@modelcontextprotocol/client`, over HTTP against the app
 * on the local host. Its default ('legacy') and 'auto' negotiation both end on 2025-11-25 and work; a
 * client pinned to 2026-07-28 cannot connect. docs/client-authors.md, "Clients of the 2026-07-28 revision", has the why.
 */

describe('a 2026-07-28 client (SDK v2, @modelcontextprotocol/client) against this 2025-11-25 server', () => {
    let host: SpawnedHost;
    let mcpUrl: URL;

    before(async () => {
        // Memory storage: this file is about the protocol handshake, not the Durable backend.
        host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('protocol'), WAIT_BUDGET_SECONDS: '5' } });
        mcpUrl = new URL(`${host.url}/api/mcp`);
    });
    after(async () => {
        await host?.stop();
    });

    /** A v2 client whose HTTP exchanges are recorded as "METHOD jsonrpc-method -> status". */
    function recordingClient(options: ConstructorParameters<typeof Client>[1]) {
        const exchanges: string[] = [];
        const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
            const response = await fetch(input, init);
            const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
            exchanges.push(`${init?.method ?? 'GET'} ${body.method ?? ''} -> ${response.status}`.replace('  ', ' '));
            return response;
        };
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, options);
        const transport = new StreamableHTTPClientTransport(mcpUrl, { fetch: recordingFetch });
        return { client, transport, exchanges };
    }

    async function mineAndRead(client: Client): Promise<void> {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['cancel_mining', 'get_mining_result', 'start_mining']);
        const progress: number[] = [];
        const result = await client.callTool(
            { name: 'start_mining', arguments: { difficulty: 8, blocks: 2 } },
            { onprogress: (p: { progress: number }) => progress.push(p.progress) }
        );
        const status = result.structuredContent as { status: string; workflow_id: string };
        assert.equal(status.status, 'completed');
        const link = (result.content as Array<{ type: string; uri?: string }>).find((c) => c.type === 'resource_link');
        assert.equal(link?.uri, `mining://workflows/${status.workflow_id}`);
        const read = await client.readResource({ uri: `mining://workflows/${status.workflow_id}` });
        const content = read.contents[0] as { text?: string } | undefined;
        assert.equal((JSON.parse(content?.text ?? '{}') as { status?: string }).status, 'completed');
    }

    test('by default it connects with the 2025 handshake at 2025-11-25, and the tools and the resource work', async () => {
        const { client, transport, exchanges } = recordingClient({});
        await client.connect(transport);
        try {
            assert.equal(transport.protocolVersion, '2025-11-25');
            assert.deepEqual(exchanges.slice(0, 2), ['POST initialize -> 200', 'POST notifications/initialized -> 202']);
            await mineAndRead(client);
        } finally {
            await client.close();
        }
    });

    test("with 'auto' negotiation its server/discover probe is refused, and it falls back to 2025-11-25", async () => {
        const { client, transport, exchanges } = recordingClient({ versionNegotiation: { mode: 'auto' } });
        await client.connect(transport);
        try {
            // SDK 1.32's transport answers a request for an unknown protocol version with HTTP 400.
            assert.deepEqual(exchanges.slice(0, 2), ['POST server/discover -> 400', 'POST initialize -> 200']);
            assert.equal(transport.protocolVersion, '2025-11-25');
            await mineAndRead(client);
        } finally {
            await client.close();
        }
    });

    test('pinned to 2026-07-28 it cannot connect: the server offers no 2026 revision', async () => {
        const { client, transport } = recordingClient({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await assert.rejects(client.connect(transport), /did not offer pinned protocol version 2026-07-28/);
        await client.close().catch(() => undefined);
    });
});
