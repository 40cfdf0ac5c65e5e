import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { CANCEL_WAIT_MS } from '../../src/workflow/workflowService';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';
import { until } from '@mcp-mining/testkit';
import { WatchedClock } from '../support/watchedClock';

/**
 * A request the client gives up on (notifications/cancelled) stops
 * its budgeted wait at once: the status reads stop instead of running to the end of the budget. Virtual
 * time: the budgets are 20 s (start_mining, tasks/result) and 5 s (cancel_mining); a wait that ignores
 * the abort runs its whole budget, one that heeds it ends within a few pauses of the abort.
 */

const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });
const BUDGET_MS = CONFIG.waitBudgetSeconds * 1000;
/** Reads before the client gives up: the wait is well under way by then. */
const READS_BEFORE_ABORT = 3;

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

/**
 * A backend where every workflow runs forever (terminate included: its end never shows), and a hook that
 * fires on the READS_BEFORE_ABORT-th status read after `arm()`.
 */
function foreverBackend() {
    const backend = new MemoryBackend();
    backend.terminate = async (instanceId, reason) => {
        backend.calls.push({ method: 'terminate', args: [instanceId, reason] });
    };
    let armed: { reads: number; fire: () => void } | undefined;
    const getStatus = backend.getStatus.bind(backend);
    backend.getStatus = async (instanceId) => {
        if (armed && ++armed.reads === READS_BEFORE_ABORT) armed.fire();
        return getStatus(instanceId);
    };
    const arm = (fire: () => void) => {
        armed = { reads: 0, fire };
    };
    const reads = () => backend.count('getStatus');
    return { backend, arm, reads };
}

async function connect(backend: MemoryBackend) {
    const clock = new WatchedClock(new FakeClock());
    const server = buildMcpServer({ client: backend, config: CONFIG, log: new MemoryLog(), clock, tenant: SHARED_TENANT, wallNow: () => backend.now });
    const { client } = await connectInMemory(server, clients);
    return { client, clock };
}

/** Waits for the server's wait to end (no sleep of the clock left), then checks that it ended early. */
async function assertStoppedEarly(clock: WatchedClock, budgetMs: number, what: string): Promise<void> {
    await until(() => clock.pending === 0, `${what}: the budgeted wait ends`, 10_000, 5);
    assert.ok(clock.now() < budgetMs / 4, `${what}: the wait ran ${clock.now()} ms of its ${budgetMs} ms budget after the abort`);
}

describe('an aborted request stops its budgeted wait', () => {
    it('start_mining (plain call): notifications/cancelled', async () => {
        const { backend, arm } = foreverBackend();
        const { client, clock } = await connect(backend);
        const controller = new AbortController();
        arm(() => controller.abort());
        await assert.rejects(client.callTool({ name: 'start_mining', arguments: { blocks: 4 } }, CallToolResultSchema, { signal: controller.signal }));
        await assertStoppedEarly(clock, BUDGET_MS, 'start_mining');
    });

    it('cancel_mining: notifications/cancelled', async () => {
        const { backend, arm } = foreverBackend();
        const { client, clock } = await connect(backend);
        await backend.startNew('MineChain', { instanceId: 'shared-forever', input: { difficulty: 12, blocks: 4 } });
        const controller = new AbortController();
        arm(() => controller.abort());
        await assert.rejects(
            client.callTool({ name: 'cancel_mining', arguments: { workflow_id: 'shared-forever' } }, CallToolResultSchema, { signal: controller.signal })
        );
        await assertStoppedEarly(clock, CANCEL_WAIT_MS, 'cancel_mining');
        assert.equal(backend.count('terminate'), 1);
    });

    it('tasks/result: notifications/cancelled', async () => {
        const { backend, arm } = foreverBackend();
        const { client, clock } = await connect(backend);
        const { task } = await client.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: { blocks: 4 }, task: {} } },
            CreateTaskResultSchema
        );
        const controller = new AbortController();
        arm(() => controller.abort());
        await assert.rejects(client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema, { signal: controller.signal }));
        await assertStoppedEarly(clock, BUDGET_MS, 'tasks/result');
    });
});
