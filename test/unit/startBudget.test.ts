import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { SECOND_LOOK_MS } from '../../src/workflow/startOrFind';
import type { DurableStatusLike } from '../../src/workflow/durableStatus';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { FakeClock, FakeDurableClient, MemoryLog, notFoundOnRead } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';

/**
 * start_mining's wait budget is the client's patience for the whole call: the time the start request
 * (and, with an idempotency key, the read before it) takes comes out of the budget, so a slow backend
 * does not stretch the answer past WAIT_BUDGET_SECONDS.
 */

const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });
const BUDGET_MS = CONFIG.waitBudgetSeconds * 1000;

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

const running: DurableStatusLike = { runtimeStatus: 'Running', input: { difficulty: 12, blocks: 4 }, output: null, customStatus: null };

/** A backend whose start requests take `startMs` and whose first read takes `readMs`, on the fake clock. */
function slowBackend(clock: FakeClock, startMs: number, readMs = 0) {
    // Each instance reads with its own input: a keyed start reads its key's claim back (src/workflow/keyClaim.ts).
    const started = new Map<string, unknown>();
    const durable = new FakeDurableClient((id) => (started.has(id) ? { ...running, input: started.get(id) } : notFoundOnRead(id)));
    const startNew = durable.startNew.bind(durable);
    durable.startNew = async (name, options) => {
        await clock.sleep(startMs);
        if (!started.has(options.instanceId)) started.set(options.instanceId, options.input);
        return startNew(name, options);
    };
    const getStatus = durable.getStatus.bind(durable);
    let slowReads = 0;
    durable.getStatus = async (id, options) => {
        if (slowReads++ === 0) await clock.sleep(readMs);
        return getStatus(id, options);
    };
    return durable;
}

async function startMining(durable: FakeDurableClient, clock: FakeClock, args: Record<string, unknown>) {
    const server = buildMcpServer({ client: durable, config: CONFIG, log: new MemoryLog(), clock, tenant: SHARED_TENANT });
    const { client } = await connectInMemory(server, clients);
    const result = (await client.callTool({ name: 'start_mining', arguments: args })) as CallToolResult;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    return result.structuredContent as { status: string };
}

describe('start_mining: the wait budget covers the whole call', () => {
    it('a start request that takes 7 s leaves 13 s of waiting, not 20', async () => {
        const clock = new FakeClock();
        const status = await startMining(slowBackend(clock, 7000), clock, { blocks: 4 });
        assert.equal(status.status, 'running');
        assert.equal(clock.time, BUDGET_MS);
    });

    it('with an idempotency key, the read before the start counts too', async () => {
        const clock = new FakeClock();
        const status = await startMining(slowBackend(clock, 4000, 3000), clock, { blocks: 4, idempotency_key: 'slow-1' });
        assert.equal(status.status, 'running');
        assert.equal(clock.time, BUDGET_MS);
    });

    it('a start request that outlasts the budget is answered without a wait, after only the cap check', async () => {
        const clock = new FakeClock();
        const durable = slowBackend(clock, BUDGET_MS + 1000);
        const status = await startMining(durable, clock, { blocks: 4 });
        assert.equal(status.status, 'running');
        // Only the cap's looks (MAX_ACTIVE_WORKFLOWS: racing starts rank themselves before one is handed out), no wait.
        assert.equal(clock.time, BUDGET_MS + 1000 + SECOND_LOOK_MS);
        // This fake lists nothing, so each of the three looks reads the workflow (was it withdrawn?); the wait read none.
        assert.equal(durable.count('getStatus'), 3);
    });
});
