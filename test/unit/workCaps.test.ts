import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import { ACTIVE_STATUSES, CAP_WITHDRAW_REASON, COUNT_MAX_PAGES } from '../../src/workflow/workCaps';
import { countFailedText, countUnsupportedText } from '../../src/mcp/refusalText';
import { expectedAttempts, MINING, overWorkText } from '../../src/jobs/mining/job';
import type { InstancePage, InstanceQuery } from '../../src/workflow/workflowClient';
import { keyedWorkflowId } from '../../src/workflow/ids';
import { isKeyClaimId, KEY_CLAIM, keyClaimId } from '../../src/workflow/keyClaim';
import { principalTenant, type Tenant } from '../../src/workflow/tenant';
import { DurableHttpError } from '../../src/workflow/durableHttpError';
import { FakeClock, MemoryLog, notFoundOnRead, serverError, workflowStarts } from './helpers/fakes';
import { until } from '@mcp-mining/testkit';
import { MemoryBackend } from './helpers/memoryBackend';

/** The refusal text of a call over MAX_WORK, as start_mining says it (undefined when it fits). */
const workCapError = (blocks: number, difficulty: number, maxWork: number) => {
    return expectedAttempts(blocks, difficulty) <= maxWork ? undefined : overWorkText(blocks, difficulty, maxWork);
};
import { connectInMemory } from './helpers/inMemoryClient';

/** The caps per tenant: MAX_WORK per call, MAX_ACTIVE_WORKFLOWS running at once, counted in the backend. */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_ACTIVE_WORKFLOWS: '3', MAX_WORK: String(2 ** 20) });
const ALICE = principalTenant('aad', 'alice');
const BOB = principalTenant('aad', 'bob');

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(backend: MemoryBackend, tenant: Tenant, config: Config = CONFIG) {
    const log = new MemoryLog();
    const server = buildMcpServer({ client: backend, config, log, clock: new FakeClock(), tenant, wallNow: () => backend.now });
    const { client } = await connectInMemory(server, clients);
    const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: 'start_mining', arguments: args })) as CallToolResult;
    const startTask = (args: Record<string, unknown>) =>
        client.request({ method: 'tools/call', params: { name: 'start_mining', arguments: args, task: {} } }, CreateTaskResultSchema);
    return { client, call, startTask, log };
}

function text(result: CallToolResult): string {
    const first = result.content[0];
    return first?.type === 'text' ? first.text : '';
}

function running(backend: MemoryBackend, tenant: Tenant): string[] {
    return [...backend.instances.values()]
        .filter((i) => i.instanceId?.startsWith(`${tenant.tag}-`) && (ACTIVE_STATUSES as readonly string[]).includes(i.runtimeStatus))
        .map((i) => i.instanceId ?? '');
}

describe('MAX_WORK: the expected attempts of one call', () => {
    it('is blocks × 2^difficulty, and a call over it is refused naming the cap and what fits', () => {
        assert.equal(expectedAttempts(4, 28), 2 ** 30);
        assert.equal(workCapError(16, 16, 2 ** 20), undefined);
        const refusal = workCapError(4, 20, 2 ** 20);
        assert.match(refusal ?? '', /4194304 expected attempts \(blocks × 2\^difficulty = 4 × 2\^20\)/);
        assert.match(refusal ?? '', /MAX_WORK = 2\^20 = 1048576/);
        assert.match(refusal ?? '', /at most 1 block at difficulty 20/);
        assert.match(workCapError(1, 30, 2 ** 20) ?? '', /use difficulty 20 or lower/);
    });

    it('refuses a plain call and a task over it before anything starts', async () => {
        const backend = new MemoryBackend();
        const { call, startTask } = await connect(backend, ALICE);
        const result = await call({ difficulty: 21, blocks: 1 });
        assert.equal(result.isError, true);
        assert.match(text(result), /MAX_WORK/);
        await assert.rejects(startTask({ difficulty: 19, blocks: 4 }));
        assert.equal(workflowStarts(backend), 0);
    });
});

describe('MAX_WORK at its bound, through the tool', () => {
    it('serves a start whose expected attempts are exactly MAX_WORK, and refuses one a single attempt over it', async () => {
        // 3 blocks at difficulty 10: 3072 expected attempts.
        const exactly = await connect(new MemoryBackend(), ALICE, parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_WORK: '3072' }));
        const served = await exactly.call({ difficulty: 10, blocks: 3 });
        assert.notEqual(served.isError, true, text(served));
        assert.equal((served.structuredContent as { expected_attempts?: number }).expected_attempts, 3072);
        const backend = new MemoryBackend();
        const under = await connect(backend, ALICE, parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_WORK: '3071' }));
        const refused = await under.call({ difficulty: 10, blocks: 3 });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /3072 expected attempts .*MAX_WORK = 3071/);
        assert.equal(workflowStarts(backend), 0);
    });
});

describe('MAX_ACTIVE_WORKFLOWS: running workflows per tenant', () => {
    it('refuses a start at the cap, naming the cap and the count, and leaves another tenant alone', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const bob = await connect(backend, BOB);
        for (let i = 0; i < 3; i++) assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        const refused = await alice.call({ difficulty: 4, blocks: 1 });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /You already have 3 mining workflows running, and at most 3 may run at once \(MAX_ACTIVE_WORKFLOWS = 3\)/);
        assert.match(text(refused), /cancel_mining/);
        await assert.rejects(alice.startTask({ difficulty: 4, blocks: 1 }));
        assert.equal(workflowStarts(backend), 3);
        assert.notEqual((await bob.call({ difficulty: 4, blocks: 1 })).isError, true);
        assert.equal(running(backend, BOB).length, 1);
        // One ends: there is room again.
        backend.set(running(backend, ALICE)[0] ?? '', { runtimeStatus: 'Completed' });
        assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
    });

    it('holds against concurrent starts, plain and as tasks: at most the cap stay, every other call is refused with the cap', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const calls = Array.from({ length: 60 }, (_, i) =>
            i % 2 === 0
                ? alice.call({ difficulty: 4, blocks: 1 }).then((r) => (r.isError === true ? text(r) : 'ok'))
                : alice.startTask({ difficulty: 4, blocks: 1 }).then(
                      () => 'ok',
                      (error: Error) => error.message
                  )
        );
        const outcomes = await Promise.all(calls);
        const accepted = outcomes.filter((o) => o === 'ok').length;
        assert.ok(running(backend, ALICE).length <= 3, `${running(backend, ALICE).length} running`);
        assert.ok(accepted <= 3, `${accepted} accepted`);
        // Plain calls and task-augmented ones both say why (the latter as the JSON-RPC error's message).
        for (const outcome of outcomes.filter((o) => o !== 'ok')) assert.match(outcome, /MAX_ACTIVE_WORKFLOWS = 3/);
        // Each withdrawn workflow was terminated with the cap's reason.
        for (const instance of backend.instances.values()) {
            if (instance.runtimeStatus === 'Terminated') assert.equal(instance.output, CAP_WITHDRAW_REASON);
        }
    });

    it('a refusal at the cap withdraws a stray: a workflow past its looks that ranks past the cap (its withdraw gave up)', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        // Four running, created two minutes ago: the fourth's own withdraw was lost.
        const minutes = (n: number) => new Date(backend.now - n * 60_000);
        const ids = [4, 3, 2].map((ago, i) => backend.seed(`${ALICE.tag}-kept${i}`, { createdTime: minutes(ago) }));
        const stray = backend.seed(`${ALICE.tag}-stray`, { createdTime: minutes(1.5) });
        // One still young (its own looks are not over): left to them.
        const young = backend.seed(`${ALICE.tag}-young`, { createdTime: new Date(backend.now - 1000) });
        const refused = await alice.call({ difficulty: 4, blocks: 1 });
        assert.match(text(refused), /MAX_ACTIVE_WORKFLOWS = 3/);
        await until(() => backend.instances.get(stray)?.runtimeStatus === 'Terminated', 'the stray withdrawn');
        assert.equal(backend.instances.get(stray)?.output, CAP_WITHDRAW_REASON);
        assert.deepEqual(running(backend, ALICE).sort(), [...ids, young].sort());
    });

    it('lets a keyed retry start again when its first start was withdrawn', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const id = keyedWorkflowId(ALICE, 'job');
        backend.instances.set(id, {
            instanceId: id,
            runtimeStatus: 'Terminated',
            input: { difficulty: 4, blocks: 1 },
            output: CAP_WITHDRAW_REASON,
            createdTime: new Date(backend.now),
            lastUpdatedTime: new Date(backend.now),
        });
        const result = await alice.call({ difficulty: 4, blocks: 1, idempotency_key: 'job' });
        assert.notEqual(result.isError, true, text(result));
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Running');
    });

    it('refuses when the count fails, and stops counting after a bounded number of pages', async () => {
        const failing = new MemoryBackend();
        failing.listInstances = async () => {
            throw new DurableHttpError('list query', 503);
        };
        const a = await connect(failing, ALICE);
        assert.equal(text(await a.call({ difficulty: 4, blocks: 1 })), countFailedText(MINING));
        assert.equal(workflowStarts(failing), 0);

        const endless = new MemoryBackend();
        let pages = 0;
        endless.listInstances = async (query: InstanceQuery): Promise<InstancePage> => {
            pages++;
            return { instances: [], continuationToken: `${Number(query.continuationToken ?? 0) + 1}` };
        };
        const b = await connect(endless, ALICE);
        assert.equal(text(await b.call({ difficulty: 4, blocks: 1 })), countFailedText(MINING));
        assert.equal(pages, COUNT_MAX_PAGES);
        assert.equal(workflowStarts(endless), 0);
    });

    it('counts by the tenant prefix, running statuses only', async () => {
        const backend = new MemoryBackend();
        await connect(backend, ALICE).then((a) => a.call({ difficulty: 4, blocks: 1 }));
        const query = backend.calls.find((c) => c.method === 'listInstances')?.args[0] as InstanceQuery;
        assert.equal(query.instanceIdPrefix, `${ALICE.tag}-`);
        // Suspended ones are listed too, to end expired ones; only the active ones count.
        assert.deepEqual(query.runtimeStatus, [...ACTIVE_STATUSES, 'Suspended']);
    });
});

describe('a keyed duplicate at the cap', () => {
    it('twelve concurrent calls with one key and the same arguments, one below the cap: all get the one workflow, none the cap', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        for (let i = 0; i < 2; i++) assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        const args = { difficulty: 4, blocks: 1, idempotency_key: 'the-fifth' };
        const id = keyedWorkflowId(ALICE, 'the-fifth');
        // The worst interleaving: the other calls read the key's id before the first call's start (stale:
        // nothing there) and count the running workflows after it, so the count sees the key's own workflow.
        const first = alice.call(args);
        await until(() => backend.instances.has(id), 'the first call started the workflow');
        const read = backend.getStatus.bind(backend);
        let stale = 11;
        backend.getStatus = async (instanceId) => (instanceId === id && stale-- > 0 ? Promise.reject(notFoundOnRead(instanceId)) : read(instanceId));
        const results = [await first, ...(await Promise.all(Array.from({ length: 11 }, () => alice.call(args))))];
        for (const result of results) {
            assert.notEqual(result.isError, true, text(result));
            assert.equal((result.structuredContent as { workflow_id: string }).workflow_id, id);
        }
        assert.equal(running(backend, ALICE).length, 3);
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Running');
        // And a new start now meets the cap.
        assert.match(text(await alice.call({ difficulty: 4, blocks: 1 })), /MAX_ACTIVE_WORKFLOWS = 3/);
    });

    it('one below the cap, its key\'s workflow appearing between the find and the admit, every read after failing: the cap is not what it is told', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        for (let i = 0; i < 2; i++) assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        const id = keyedWorkflowId(ALICE, 'late');
        const read = backend.getStatus.bind(backend);
        let reads = 0;
        backend.getStatus = async (instanceId) => {
            if (instanceId !== id) return read(instanceId);
            reads++;
            if (reads > 1) throw serverError();
            // The find sees nothing; a racing call with the key starts its workflow right after.
            backend.seed(id, { name: 'MineChain', input: { difficulty: 4, blocks: 1 } });
            throw notFoundOnRead(instanceId);
        };
        const result = await alice.call({ difficulty: 4, blocks: 1, idempotency_key: 'late' });
        // Its own workflow is not counted against it (3 running, 2 others): admitted, it cannot read its key again, and says so.
        assert.equal(result.isError, true);
        assert.doesNotMatch(text(result), /MAX_ACTIVE_WORKFLOWS/);
        assert.match(text(result), /did not answer/);
        assert.equal(workflowStarts(backend), 2, 'nothing started over the key\'s workflow');
    });
});

describe('a keyed start and the workflows the caps withdraw or a ttl ends', () => {
    const args = { difficulty: 4, blocks: 1, idempotency_key: 'k' };
    const stored = { name: 'MineChain', input: { difficulty: 4, blocks: 1 } };

    it("at the cap, its key's workflow appearing between the find and the refusal: handed out, not refused", async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        for (let i = 0; i < 3; i++) assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        const id = keyedWorkflowId(ALICE, 'k');
        const read = backend.getStatus.bind(backend);
        let first = true;
        backend.getStatus = async (instanceId) => {
            if (instanceId === id && first) {
                first = false;
                // The find sees nothing; a racing call with the key has started its workflow (admitted first: created
                // before the three others, it ranks first and stays).
                backend.seed(id, { ...stored, createdTime: new Date(backend.now - 1000) });
                throw notFoundOnRead(instanceId);
            }
            return read(instanceId);
        };
        const result = await alice.call(args);
        assert.notEqual(result.isError, true, text(result));
        assert.equal((result.structuredContent as { workflow_id: string }).workflow_id, id);
        assert.equal(workflowStarts(backend), 3);
    });

    it('a duplicate that found the workflow young is refused, not handed it, when a racing look withdraws it', async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE);
        const id = keyedWorkflowId(ALICE, 'k');
        backend.seed(id, stored);
        // The call that started it withdraws it (over the cap) between this duplicate's find and its first look.
        const list = backend.listInstances.bind(backend);
        backend.listInstances = async (query) => {
            if (backend.instances.get(id)?.runtimeStatus === 'Running') backend.set(id, { runtimeStatus: 'Terminated', output: CAP_WITHDRAW_REASON });
            return list(query);
        };
        const result = await alice.call(args);
        assert.equal(result.isError, true, JSON.stringify(result.structuredContent));
        assert.match(text(result), /MAX_ACTIVE_WORKFLOWS = 3/);
    });

    it("a task past its ttl that still runs: the key's next start ends it and starts again; refused once (409) while the end is queued", async () => {
        const backend = new MemoryBackend();
        backend.queueTerminates = true;
        const alice = await connect(backend, ALICE);
        const id = keyedWorkflowId(ALICE, 'k');
        backend.seed(id, { ...stored, input: { ...stored.input, task_ttl_ms: 1000 }, createdTime: new Date(backend.now - 60_000) });
        // The count before the claim ends the expired run; the backend applies that later, so this start meets a running id.
        const refused = await alice.call(args);
        assert.equal(refused.isError, true);
        assert.match(text(refused), /did not accept it/);
        assert.ok(
            backend.calls.some((c) => c.method === 'terminate' && c.args[0] === keyClaimId(id)),
            'the claim is released: the refused start did not land'
        );
        backend.applyQueuedTerminates();
        assert.equal(backend.instances.get(keyClaimId(id))?.runtimeStatus, 'Terminated');
        const again = await alice.call(args);
        assert.notEqual(again.isError, true, text(again));
        assert.equal((again.structuredContent as { workflow_id: string }).workflow_id, id);
        assert.equal(backend.instances.get(id)?.runtimeStatus, 'Running');
        assert.equal((backend.instances.get(id)?.input as { task_ttl_ms?: number }).task_ttl_ms, undefined, 'a new run, of this call');
    });
});

describe('MAX_ACTIVE_WORKFLOWS_TOTAL and MAX_STARTS_PER_MINUTE', () => {
    it('refuses a start when all tenants together are at the total cap, whoever asks', async () => {
        const config = parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_ACTIVE_WORKFLOWS: '3', MAX_ACTIVE_WORKFLOWS_TOTAL: '3' });
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE, config);
        const bob = await connect(backend, BOB, config);
        const carol = await connect(backend, principalTenant('aad', 'carol'), config);
        for (let i = 0; i < 2; i++) assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        assert.notEqual((await bob.call({ difficulty: 4, blocks: 1 })).isError, true);
        const refused = await carol.call({ difficulty: 4, blocks: 1 });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /MAX_ACTIVE_WORKFLOWS_TOTAL = 3/);
        assert.equal(workflowStarts(backend), 3);
        // One ends: there is room again, for anyone.
        backend.set(running(backend, BOB)[0] ?? '', { runtimeStatus: 'Completed' });
        assert.notEqual((await carol.call({ difficulty: 4, blocks: 1 })).isError, true);
    });

    it('holds the total cap against concurrent starts of many tenants', async () => {
        const config = parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_ACTIVE_WORKFLOWS: '3', MAX_ACTIVE_WORKFLOWS_TOTAL: '4' });
        const backend = new MemoryBackend();
        const callers = await Promise.all(Array.from({ length: 10 }, (_, i) => connect(backend, principalTenant('aad', `t${i}`), config)));
        const results = await Promise.all(callers.flatMap((c) => [c.call({ difficulty: 4, blocks: 1 }), c.call({ difficulty: 4, blocks: 1 })]));
        const accepted = results.filter((r) => r.isError !== true).length;
        const active = [...backend.instances.values()].filter((i) => i.runtimeStatus === 'Running').length;
        assert.ok(accepted <= 4 && active <= 4, `${accepted} accepted, ${active} running`);
        for (const refused of results.filter((r) => r.isError === true)) assert.match(text(refused), /MAX_ACTIVE_WORKFLOWS(_TOTAL)? = [34]/);
    });

    it('refuses a tenant that started MAX_STARTS_PER_MINUTE workflows in the last minute, finished or not, and admits it a minute later', async () => {
        const config = parseConfig({ TASKHUB_NAME: 'unittests', WAIT_BUDGET_SECONDS: '0', MAX_STARTS_PER_MINUTE: '2' });
        const backend = new MemoryBackend();
        const alice = await connect(backend, ALICE, config);
        const bob = await connect(backend, BOB, config);
        for (let i = 0; i < 2; i++) {
            assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
            backend.set(running(backend, ALICE)[0] ?? '', { runtimeStatus: 'Completed' });
        }
        const refused = await alice.call({ difficulty: 4, blocks: 1 });
        assert.match(text(refused), /MAX_STARTS_PER_MINUTE = 2/);
        assert.equal(workflowStarts(backend), 2);
        // Counted per tenant: another caller is not affected.
        assert.notEqual((await bob.call({ difficulty: 4, blocks: 1 })).isError, true);
        // The count is of durable creation times, so a minute later (on the backend's clock) there is room again.
        backend.now += 61_000;
        assert.notEqual((await alice.call({ difficulty: 4, blocks: 1 })).isError, true);
        const query = backend.calls.filter((c) => c.method === 'listInstances').map((c) => c.args[0] as InstanceQuery).find((q) => q.createdTimeFrom !== undefined);
        assert.equal(query?.instanceIdPrefix, `${ALICE.tag}-`);
    });
});

describe('a withdraw that was answered and not applied', () => {
    it('is sent again until the workflow ends, each resend logged with its count', async () => {
        const backend = new MemoryBackend();
        // The first terminate of each workflow is answered and lost (as a control-queue message a crashed host had read).
        const terminate = backend.terminate.bind(backend);
        const lost = new Set<string>();
        backend.terminate = async (instanceId, reason) => {
            if (lost.has(instanceId)) return terminate(instanceId, reason);
            lost.add(instanceId);
            backend.calls.push({ method: 'terminate', args: [instanceId, reason] });
        };
        const alice = await connect(backend, ALICE);
        const results = await Promise.all(Array.from({ length: 8 }, () => alice.call({ difficulty: 4, blocks: 1 })));
        const refused = results.filter((r) => r.isError === true);
        assert.ok(refused.length >= 5, `${refused.length} of 8 refused at the cap of 3`);
        assert.ok(lost.size >= 5, `${lost.size} withdraws lost`);
        await until(() => running(backend, ALICE).length <= 3, 'the lost withdraws are sent again and applied');
        for (const id of lost) {
            const status = backend.instances.get(id);
            assert.equal(status?.runtimeStatus, 'Terminated', id);
            assert.ok(backend.calls.filter((c) => c.method === 'terminate' && c.args[0] === id).length >= 2, `${id}: its terminate sent again`);
        }
        assert.ok(alice.log.lines.some((line) => /terminate sent again \(resend 1\)/.test(String(line[1]))));
    });
});

describe('key claims are bookkeeping, not work', () => {
    it('many keyed starts in flight (their claims in force) count in no cap: not the total, not a caller\'s running count, not its rate', async () => {
        // Small caps: four claims in force would fill each of them twice over if they were counted.
        const config = parseConfig({
            TASKHUB_NAME: 'unittests',
            WAIT_BUDGET_SECONDS: '0',
            MAX_ACTIVE_WORKFLOWS: '2',
            MAX_ACTIVE_WORKFLOWS_TOTAL: '2',
            MAX_STARTS_PER_MINUTE: '2',
        });
        const backend = new MemoryBackend();
        // Each keyed call is held between winning its key's claim and starting its workflow.
        const startNew = backend.startNew.bind(backend);
        const held: Array<() => void> = [];
        let holding = true;
        backend.startNew = async (name, options) => {
            if (holding && name !== KEY_CLAIM) await new Promise<void>((resolve) => held.push(resolve));
            return startNew(name, options);
        };
        const alice = await connect(backend, ALICE, config);
        const bob = await connect(backend, BOB, config);
        const keyed = Array.from({ length: 4 }, (_, i) => alice.call({ difficulty: 4, blocks: 1, idempotency_key: `k${i}` }));
        await until(() => held.length === 4, 'four keyed calls held at their workflow start, each holding its claim');
        const claims = [...backend.instances.values()].filter((i) => isKeyClaimId(i.instanceId ?? '') && i.runtimeStatus === 'Running');
        assert.equal(claims.length, 4);
        holding = false;

        // The total (2) and Alice's own caps (2 running, 2 starts a minute) are empty of work: two plain starts fit.
        const bobs = await bob.call({ difficulty: 4, blocks: 1 });
        assert.notEqual(bobs.isError, true, text(bobs));
        const alices = await alice.call({ difficulty: 4, blocks: 1 });
        assert.notEqual(alices.isError, true, text(alices));
        // And the total is full now: a third caller is refused by it, with the count of work only.
        const carol = await connect(backend, principalTenant('aad', 'carol'), config);
        const refused = await carol.call({ difficulty: 4, blocks: 1 });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /MAX_ACTIVE_WORKFLOWS_TOTAL = 2/);

        // The held calls go on: their workflows meet full caps and are withdrawn; work stays within the total.
        for (const go of held.splice(0)) go();
        for (const result of await Promise.all(keyed)) assert.equal(result.isError, true, text(result));
        const working = [...backend.instances.values()].filter(
            (i) => !isKeyClaimId(i.instanceId ?? '') && (ACTIVE_STATUSES as readonly string[]).includes(i.runtimeStatus)
        );
        assert.equal(working.length, 2);
    });
});

describe('a count the backend cannot answer', () => {
    it('a list query the backend refuses (HTTP 400: no instanceIdPrefix filter, say) is a refusal naming the operator, logged with what to check', async () => {
        const backend = new MemoryBackend();
        backend.listInstances = async () => {
            throw new DurableHttpError('list query', 400);
        };
        const alice = await connect(backend, ALICE);
        const refused = await alice.call({ difficulty: 4, blocks: 1 });
        assert.equal(refused.isError, true);
        assert.equal(text(refused), countUnsupportedText(MINING));
        assert.equal(workflowStarts(backend), 0);
        const logged = alice.log.lines.filter((line) => line[0] === 'error').map((line) => line.map(String).join(' ')).join('\n');
        assert.match(logged, /refused the list query that counting running workflows/);
        assert.match(logged, /HTTP 400/);
    });

    it('a count that fails for a while (HTTP 503, a timeout) says to try again', async () => {
        const backend = new MemoryBackend();
        backend.listInstances = async () => {
            throw new DurableHttpError('list query', 503);
        };
        const alice = await connect(backend, ALICE);
        assert.equal(text(await alice.call({ difficulty: 4, blocks: 1 })), countFailedText(MINING));
        assert.match(alice.log.lines.filter((line) => line[0] === 'error').map((line) => line.map(String).join(' ')).join('\n'), /counting running workflows failed/);
    });
});
