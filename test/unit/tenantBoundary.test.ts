import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import type { InstanceQuery, WorkflowClient } from '../../src/workflow/workflowClient';
import { isWellFormedWorkflowId } from '../../src/workflow/ids';
import { keyClaimId } from '../../src/workflow/keyClaim';
import { principalTenant, SHARED_TENANT, type Tenant } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog, notFoundOnRead, notFoundOnTerminate } from './helpers/fakes';
import { connectInMemory } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';
import { attackIds } from '../support/attackIds';

/**
 * The tenant boundary from the attacker's side. The backend here resolves an id as the real one does:
 * the durable client pastes it into a management URL (…/instances/{id}?…), the URL is normalised (dot
 * segments, backslashes, tabs) and the host routes the decoded path. So `shared-x/../{Alice's id}` names
 * Alice's workflow, exactly as it did on a live host before ids were checked for well-formedness. Every
 * attempt must be answered as an unknown id, without a backend call, and leave Alice's run untouched.
 */

const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12' });
const ALICE = principalTenant('aad', 'alice');
const BOB = principalTenant('aad', 'bob');

/** The instance id a management URL built from `id` ends up naming, or undefined if it leaves …/instances/. */
function routedInstanceId(id: string): string | undefined {
    const base = '/runtime/webhooks/durabletask/instances/';
    const url = new URL(`http://127.0.0.1:7071${base}${id}?taskHub=hub&connection=Storage&code=key`);
    if (!url.pathname.startsWith(base)) return undefined;
    const rest = url.pathname.slice(base.length);
    try {
        return decodeURIComponent(rest);
    } catch {
        return undefined;
    }
}

/** The durable client over a MemoryBackend, ids routed as management URLs route them; records the raw ids it is given. */
class UrlRoutedClient implements WorkflowClient {
    readonly idsSeen: string[] = [];
    constructor(readonly backend: MemoryBackend) {}

    #route(id: string, notFound: (id: string) => Error): string {
        this.idsSeen.push(id);
        const routed = routedInstanceId(id);
        if (routed === undefined) throw notFound(id);
        return routed;
    }

    startNew(name: string, options: { instanceId: string; input: unknown }) {
        return this.backend.startNew(name, { ...options, instanceId: this.#route(options.instanceId, notFoundOnRead) });
    }
    getStatus(id: string) {
        return this.backend.getStatus(this.#route(id, notFoundOnRead));
    }
    terminate(id: string, reason: string) {
        return this.backend.terminate(this.#route(id, notFoundOnTerminate), reason);
    }
    purgeInstanceHistory(id: string) {
        return this.backend.purgeInstanceHistory(this.#route(id, notFoundOnRead));
    }
    listInstances(query: InstanceQuery) {
        return this.backend.listInstances(query);
    }
}

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(durable: UrlRoutedClient, tenant: Tenant) {
    const server = buildMcpServer({ client: durable, config: CONFIG, log: new MemoryLog(), clock: new FakeClock(), tenant, wallNow: () => durable.backend.now });
    const { client } = await connectInMemory(server, clients);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { client, call };
}

async function rejectsAsUnknown(promise: Promise<unknown>, message: RegExp, what: string): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
        assert.ok(error instanceof McpError, `${what}: ${String(error)}`);
        assert.equal(error.code, -32602, what);
        assert.match(error.message, message, what);
        return true;
    });
}

describe('tenant boundary: ids with a valid prefix that reach for another tenant', () => {
    it('the test backend routes a traversal to the victim, as a management URL would', () => {
        assert.equal(routedInstanceId('shared-x/../p1-abc'), 'p1-abc');
        assert.equal(routedInstanceId('shared-x\\..\\p1-abc'), 'p1-abc');
        assert.equal(routedInstanceId('shared-x?instanceId=p1-abc'), 'shared-x');
    });

    it("every tool, task method and resource read answers not_found, calls no backend, and leaves Alice's run running", async () => {
        const durable = new UrlRoutedClient(new MemoryBackend());
        const alice = await connect(durable, ALICE);
        const started = (await alice.call('start_mining', { difficulty: 30, blocks: 4, idempotency_key: 'alice-1' })).structuredContent as {
            status: string;
            workflow_id: string;
        };
        assert.equal(started.status, 'running');
        const victim = started.workflow_id;
        assert.ok(victim.startsWith(`${ALICE.tag}-`));

        for (const tenant of [SHARED_TENANT, BOB]) {
            const attacker = await connect(durable, tenant);
            for (const id of attackIds(tenant.tag, victim)) {
                const what = `${tenant.tag} with ${JSON.stringify(id)}`;
                for (const tool of ['get_mining_result', 'cancel_mining']) {
                    const answer = await attacker.call(tool, { workflow_id: id });
                    assert.equal(answer.isError, false, `${tool}, ${what}: ${JSON.stringify(answer.content)}`);
                    assert.deepEqual(
                        [(answer.structuredContent as { status: string }).status, (answer.structuredContent as { workflow_id: string }).workflow_id],
                        ['not_found', id],
                        `${tool}, ${what}`
                    );
                }
                const tasks = attacker.client.experimental.tasks;
                await rejectsAsUnknown(tasks.getTask(id), /Task not found/, `tasks/get, ${what}`);
                await rejectsAsUnknown(tasks.getTaskResult(id, CallToolResultSchema), /Task not found/, `tasks/result, ${what}`);
                await rejectsAsUnknown(tasks.cancelTask(id), /Task not found/, `tasks/cancel, ${what}`);
                for (const uri of [`mining://workflows/${id}`, `mining://workflows/${encodeURIComponent(id)}`]) {
                    await rejectsAsUnknown(attacker.client.readResource({ uri }), /not found/, `resources/read ${uri}, ${what}`);
                }
            }
        }

        // Nothing but well-formed ids of the caller's own reached the backend: none of the attempts did.
        assert.deepEqual(durable.idsSeen.filter((id) => !isWellFormedWorkflowId(id)), []);
        // Alice's start claimed her key first (its claim's id is hers too, and never a workflow id).
        assert.ok(durable.idsSeen.every((id) => id === victim || id === keyClaimId(victim)), 'only Alice asked about her own workflow');
        // Alice's run is untouched: still running, never terminated or purged, and she still sees it.
        const instance = durable.backend.instances.get(victim);
        assert.equal(instance?.runtimeStatus, 'Running');
        assert.deepEqual(durable.backend.calls.filter((c) => c.method === 'terminate' && c.args[0] === victim), []);
        assert.equal(durable.backend.count('purgeInstanceHistory'), 0);
        assert.equal(((await alice.call('get_mining_result', { workflow_id: victim })).structuredContent as { status: string }).status, 'running');
    });
});
