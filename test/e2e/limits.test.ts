import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AppOnAzurite, describeOnEachBackend, startAppOnAzurite } from '@mcp-mining/testkit';

/**
 * A workflow's hard bounds end to end, on both Durable backends (src/jobs/limits.ts, docs/contract.md "Limits"):
 * a start says them, and a run past its work limit or its time limit ends failed with that reason, as
 * get_mining_result reports it. Tiny limits, given in the input of a MineChain started through the Durable
 * management API as a start would write it.
 */

describeOnEachBackend('workflow limits end to end', (backend) => {
    let app: AppOnAzurite;
    let client: Client;

    before(async () => {
        app = await startAppOnAzurite(`limits${backend}`, { WAIT_BUDGET_SECONDS: '20', MAX_WORKFLOW_SECONDS: '600' }, { durable: backend });
        client = new Client({ name: 'e2e-limits', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await app?.stop();
    });

    async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        return result.structuredContent as Record<string, unknown>;
    }

    /** Starts MineChain with `input` under a workflow id of the shared tenant, and polls get_mining_result to its end. */
    async function runToEnd(input: Record<string, unknown>): Promise<Record<string, unknown>> {
        const id = `shared-${randomUUID()}`;
        const started = await fetch(`${app.host.url}/runtime/webhooks/durabletask/orchestrators/MineChain/${id}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(input),
        });
        assert.equal(started.status, 202);
        const deadline = Date.now() + 120_000;
        for (;;) {
            const status = await call('get_mining_result', { workflow_id: id });
            if (status.status !== 'running') return status;
            assert.ok(Date.now() < deadline, `still running: ${JSON.stringify(status)}`);
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
    }

    test('a start says what it committed: expected_attempts, max_attempts (16 times as many) and time_limit_seconds', async () => {
        const answer = await call('start_mining', { difficulty: 4, blocks: 2 });
        assert.equal(answer.status, 'completed');
        assert.equal(answer.expected_attempts, 2 * 2 ** 4);
        assert.equal(answer.max_attempts, 16 * 2 * 2 ** 4);
        assert.equal(answer.time_limit_seconds, 600);
    });

    test('a run past its work limit ends failed with reason work_limit', async () => {
        const status = await runToEnd({ difficulty: 24, blocks: 1, range_size: 1024, parallel_ranges: 2, work_limit: 4096, time_limit_seconds: 600 });
        assert.equal(status.status, 'failed', JSON.stringify(status));
        assert.equal(status.reason, 'work_limit');
        assert.match(String(status.error), /its work limit of 4096/);
        assert.match(String(status.next), /^Do not poll again\./);
    });

    test('a run past its time limit ends failed with reason time_limit', async () => {
        const status = await runToEnd({ difficulty: 30, blocks: 1, range_size: 1024, parallel_ranges: 1, time_limit_seconds: 1 });
        assert.equal(status.status, 'failed', JSON.stringify(status));
        assert.equal(status.reason, 'time_limit');
        assert.match(String(status.error), /time limit of 1 s/);
    });
});
