import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FAULT_PATH } from '../../devhost/worker/faultRoute';
import { ACTIVITY_MAX_ATTEMPTS } from '../../src/jobs/activityRetry';
import { startAppOnAzurite, type AppOnAzurite } from '../support/appOnAzurite';
import { describeOnEachBackend, quickRedelivery } from '../support/backends';
import type { Mined } from '../support/chainCheck';
import { CHAIN_25 } from '../support/expectedChains';
import { pollUntilDone as poll } from '../support/polling';

/**
 * Failures that Azure has and a whole-host crash does not show: the worker process exits under one MineBlock
 * call, or one call exceeds functionTimeout. The Functions host fails that invocation (the Durable extension
 * records it as the activity's failure, with no platform retry on the Node path), so the workflow lives only
 * because MineChain retries its activity calls (src/jobs/activityRetry.ts). The local host's fault route fails
 * one in-flight invocation with the host's own text; the run must still end with the chain computed
 * beforehand, and an error that every attempt repeats must still fail the workflow after the bounded retries.
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    reason?: string;
    error?: string;
    result?: Mined;
}

const TWO_BLOCKS = CHAIN_25.slice(0, 2);

describeOnEachBackend('worker faults under a running range', (backend) => {
    let app: AppOnAzurite;
    let client: Client;

    before(async () => {
        app = await startAppOnAzurite(`wfault${backend}`, { WAIT_BUDGET_SECONDS: '0', ...quickRedelivery(backend) }, { durable: backend });
        client = new Client({ name: 'worker-faults', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(app.mcpUrl));
    });
    after(async () => {
        await client?.close().catch(() => undefined);
        await app?.stop();
    });

    async function call(name: string, args: Record<string, unknown>): Promise<Status> {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        return result.structuredContent as unknown as Status;
    }

    /** Asks the host to fail MineBlock's in-flight invocation, until one is in flight; its invocation id. */
    async function injectFault(fault: 'worker-exit' | 'timeout'): Promise<string> {
        const deadline = Date.now() + 120_000;
        for (;;) {
            const res = await fetch(new URL(FAULT_PATH, app.host.url), {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ fault, function: 'MineBlock' }),
            });
            if (res.status === 200) return ((await res.json()) as { invocationId: string }).invocationId;
            assert.equal(res.status, 409, await res.text());
            await res.body?.cancel();
            assert.ok(Date.now() < deadline, 'no MineBlock invocation came in flight');
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
    }

    async function runThrough(fault: 'worker-exit' | 'timeout', hostText: RegExp): Promise<void> {
        const started = await call('start_mining', { difficulty: 25, blocks: 2 });
        assert.equal(started.status, 'running');
        const invocationId = await injectFault(fault);
        await app.host.waitForOutput(hostText, 10_000);
        const done = await poll((id) => call('get_mining_result', { workflow_id: id }), started.workflow_id);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(
            done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })),
            TWO_BLOCKS
        );
        // The failed invocation's function ran on, and its late answer was not taken.
        await app.host.waitForOutput(new RegExp(`${invocationId.slice(0, 8)}\\].*discarded`), 120_000);
    }

    test('the worker process exits under a range: the range is retried and the run completes with the right chain', async () => {
        await runThrough('worker-exit', /Functions\.MineBlock.*WorkerProcessExitException: node exited with code 1/);
    });

    test('a range exceeds functionTimeout: it fails with the host text, is retried, and the run completes with the right chain', async () => {
        await runThrough('timeout', /FunctionTimeoutException: Timeout value of 00:10:00 was exceeded by function: Functions\.MineBlock/);
    });

    test(`an error every attempt repeats still fails the workflow, after ${ACTIVITY_MAX_ATTEMPTS} attempts and no more`, async () => {
        const attempts = () => app.host.stderr.split('\n').filter((line) => /Functions\.MineBlock.*Invalid MineBlock input/.test(line)).length;
        const before = attempts();
        // MineBlock refuses an out-of-range difficulty (as the failed-workflow test in mcp.test.ts provokes it).
        const res = await fetch(`${app.host.url}/runtime/webhooks/durabletask/orchestrators/MineChain/shared-${randomUUID()}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ difficulty: 300, blocks: 1 }),
        });
        assert.equal(res.status, 202);
        const { id } = (await res.json()) as { id: string };
        const started = Date.now();
        const done = await poll((workflowId) => call('get_mining_result', { workflow_id: workflowId }), id, 120_000);
        assert.equal(done.status, 'failed', JSON.stringify(done));
        assert.equal(done.reason, 'error');
        assert.match(done.error ?? '', /difficulty/);
        assert.equal(attempts() - before, ACTIVITY_MAX_ATTEMPTS);
        // The retries wait 2 s, then 4 s.
        assert.ok(Date.now() - started >= 6000, `failed after ${Date.now() - started} ms`);
        // And none comes later.
        await new Promise((resolve) => setTimeout(resolve, 8000));
        assert.equal(attempts() - before, ACTIVITY_MAX_ATTEMPTS);
    });
});
