import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ALL_JOBS, type AppOnAzurite, JOB_FIXTURES, startAppOnAzurite, until, untilProcessIdle } from '@mcp-mining/testkit';
import { attackIds } from '../support/attackIds';
import { principalTenant } from '../../src/workflow/tenant';

/**
 * The tenant boundary from the attacker's side, end to end: the SDK client over HTTP against the app on the
 * local host (Durable state in Azurite), whose durable client pastes ids into the management URLs of the
 * host. Alice's run (of each job) is going while an anonymous caller and Bob try ids that start with their own valid
 * prefix and reach for hers (traversal, encoded separators, another id embedded, over-long); afterwards
 * her run must still be running, never terminated, and hers to cancel.
 *
 * The host runs as if App Service Authentication were on (WEBSITE_AUTH_ENABLED), so the principal headers
 * name the tenant, as the platform's would after validating a caller.
 */

const principal = (id: string) => ({ 'x-ms-client-principal-id': id, 'x-ms-client-principal-idp': 'aad' });

interface Status {
    status: string;
    workflow_id: string;
    reason?: string;
}

describe('tenant boundary end to end: malformed ids with a valid prefix', () => {
    let app: AppOnAzurite;
    const clients: Client[] = [];

    async function connect(headers: Record<string, string> = {}): Promise<Client> {
        const client = new Client({ name: 'e2e-cross-tenant', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl, { requestInit: { headers } }));
        clients.push(client);
        await client.listTools();
        return client;
    }

    async function status(client: Client, name: string, args: Record<string, unknown>): Promise<Status> {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
        return result.structuredContent as unknown as Status;
    }

    /** The instance as the Durable management API of the host shows it, bypassing the app. */
    async function durableStatus(id: string): Promise<string> {
        const response = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances/${encodeURIComponent(id)}`);
        assert.ok(response.status === 200 || response.status === 202, `status ${response.status}`);
        return ((await response.json()) as { runtimeStatus: string }).runtimeStatus;
    }

    before(async () => {
        app = await startAppOnAzurite('tenants', { WAIT_BUDGET_SECONDS: '0', WEBSITE_AUTH_ENABLED: 'True', ...ALL_JOBS });
    });
    after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await app?.stop();
    });

    for (const fixture of JOB_FIXTURES) {
        const { start, get, cancel } = fixture.tools;
        test(`[${fixture.job}] an anonymous caller and Bob cannot read, cancel or fetch Alice's running workflow`, async () => {
            const alice = await connect(principal('alice'));
            // A run of minutes (mining: four blocks at difficulty 32, the most work MAX_WORK lets one call start), so it
            // runs for as long as the attack lasts.
            const started = await status(alice, start, fixture.long);
            assert.equal(started.status, 'running');
            const victim = started.workflow_id;
            await until(async () => (await durableStatus(victim)) === 'Running', `${victim} is running`, 60_000, 100);

            const attackers = [
                { tag: 'shared', client: await connect() },
                { tag: principalTenant('aad', 'bob').tag, client: await connect(principal('bob')) },
            ];
            for (const { tag, client } of attackers) {
                for (const id of attackIds(tag, victim)) {
                    const what = `${tag} with ${JSON.stringify(id)}`;
                    for (const tool of [get, cancel]) {
                        const answer = await status(client, tool, { workflow_id: id });
                        assert.deepEqual([answer.status, answer.workflow_id], ['not_found', id], `${tool}, ${what}`);
                    }
                    await assert.rejects(client.experimental.tasks.getTask(id), /Task not found/, `tasks/get, ${what}`);
                    await assert.rejects(client.experimental.tasks.cancelTask(id), /Task not found/, `tasks/cancel, ${what}`);
                    await assert.rejects(
                        client.readResource({ uri: `${fixture.scheme}://workflows/${encodeURIComponent(id)}` }),
                        (error: unknown) => error instanceof McpError && /not found/.test(error.message),
                        `resources/read, ${what}`
                    );
                }
                // The task result is refused too (one id is enough: it takes the same check as tasks/get).
                await assert.rejects(client.experimental.tasks.getTaskResult(`${tag}-x/../${victim}`, CallToolResultSchema), /Task not found/);
            }

            // Untouched: still running as the backend sees it, and as Alice sees it; she can still cancel it.
            assert.equal(await durableStatus(victim), 'Running');
            assert.equal((await status(alice, get, { workflow_id: victim })).status, 'running');
            const cancelled = await status(alice, cancel, { workflow_id: victim });
            assert.ok(['failed', 'running'].includes(cancelled.status), JSON.stringify(cancelled));
            await until(async () => (await durableStatus(victim)) === 'Terminated', `${victim} is terminated`, 60_000, 250);
            const ended = await status(alice, get, { workflow_id: victim });
            assert.deepEqual([ended.status, ended.reason], ['failed', 'cancelled']);
            // The cancelled activity stops its work by itself within seconds: leave the host idle for whatever runs next.
            await untilProcessIdle(app.host.pid, 'the host after the cancel');
        });
    }
});
