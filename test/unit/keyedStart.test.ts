import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { BACKEND_UNAVAILABLE, KEY_REUSED } from '../../src/mcp/refusalText';
import { keyedWorkflowId } from '../../src/workflow/ids';
import { isKeyClaimId, KEY_CLAIM, keyClaimId } from '../../src/workflow/keyClaim';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { notFoundOnRead, RESULT, serverError, workflowStarts } from './helpers/fakes';
import { clientOnBackend } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';

/**
 * start_mining with an idempotency_key against a backend that starts as the real Durable extension's
 * Azure Storage provider does (helpers/memoryBackend.ts): concurrent starts on one new id all succeed and
 * only the first one's input is kept; a start on a running id answers 409; a start on an ended id replaces
 * it. Whatever the backend answers, a call must never be handed a workflow that runs other arguments: a keyed
 * call claims its key first (src/workflow/keyClaim.ts), and only the claim's holder starts the workflow.
 */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12', WAIT_BUDGET_SECONDS: '2' });
const KEY = 'job-race';

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

const connect = (backend: MemoryBackend) => clientOnBackend(backend, CONFIG, clients);

/** Holds every start of `orchestrator` until `count` of them have arrived, then lets them all go at once: a true race. */
function raceStarts(backend: MemoryBackend, count: number, orchestrator: string): void {
    const startNew = backend.startNew.bind(backend);
    const waiting: Array<() => void> = [];
    backend.startNew = async (name, options) => {
        if (name === orchestrator) {
            await new Promise<void>((resolve) => {
                waiting.push(resolve);
                if (waiting.length === count) for (const go of waiting.splice(0)) go();
            });
        }
        return startNew(name, options);
    };
}

/** Changes the backend's starts of the workflow itself (MineChain), leaving the claims' starts as they are. */
function onWorkflowStart(backend: MemoryBackend, start: (name: string, options: { instanceId: string; input: unknown }, startNew: MemoryBackend['startNew']) => Promise<string>): void {
    const startNew = backend.startNew.bind(backend);
    backend.startNew = async (name, options) => (name === KEY_CLAIM ? startNew(name, options) : start(name, options, startNew));
}

/** The workflows the backend holds, its keys' claims left out. */
function workflows(backend: MemoryBackend): string[] {
    return [...backend.instances.keys()].filter((id) => !isKeyClaimId(id));
}

/** Resolves once `condition` holds, checked between the other calls' steps. */
async function until(condition: () => boolean): Promise<void> {
    for (let turns = 0; !condition(); turns++) {
        if (turns > 10_000) throw new Error('the interleaving never came');
        await new Promise<void>((resolve) => setImmediate(resolve));
    }
}

/** The status reads of one id. */
function readsOf(backend: MemoryBackend, id: string): number {
    return backend.calls.filter((c) => c.method === 'getStatus' && c.args[0] === id).length;
}

type Outcome = { workflowId: string } | { error: string };

async function plainStart(client: Client, args: Record<string, unknown>): Promise<Outcome> {
    const result = (await client.callTool({ name: 'start_mining', arguments: { ...args, idempotency_key: KEY } })) as CallToolResult;
    const text = result.content[0];
    assert.ok(text?.type === 'text');
    if (result.isError) return { error: text.text };
    return { workflowId: String((result.structuredContent as { workflow_id: unknown }).workflow_id) };
}

/**
 * A task-augmented call answers with the task, or (a refused start) with a JSON-RPC error whose message
 * is the tool's own (KEY_REUSED for a loser).
 */
async function taskStart(client: Client, args: Record<string, unknown>): Promise<Outcome> {
    try {
        const { task } = await client.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: { ...args, idempotency_key: KEY }, task: { ttl: 60_000 } } },
            CreateTaskResultSchema
        );
        return { workflowId: task.taskId };
    } catch (error) {
        return { error: (error as Error).message };
    }
}

/** Exactly one call got the workflow, and it is the one whose arguments the workflow runs; the other got KEY_REUSED. */
function assertOneWinner(
    backend: MemoryBackend,
    calls: Array<{ args: { difficulty: number; blocks: number }; outcome: Outcome }>,
    loserMessage: RegExp | string = KEY_REUSED
) {
    const id = keyedWorkflowId(SHARED_TENANT, KEY);
    assert.deepEqual(workflows(backend), [id], 'one workflow');
    const stored = backend.instances.get(id)?.input as { difficulty: number; blocks: number };
    const winners = calls.filter((c) => 'workflowId' in c.outcome);
    const losers = calls.filter((c) => 'error' in c.outcome);
    assert.equal(winners.length, 1, JSON.stringify(calls));
    assert.equal(losers.length, 1, JSON.stringify(calls));
    assert.deepEqual(winners[0]?.outcome, { workflowId: id });
    assert.equal(winners[0]?.args.difficulty, stored.difficulty);
    assert.equal(winners[0]?.args.blocks, stored.blocks);
    const error = (losers[0]?.outcome as { error: string }).error;
    if (typeof loserMessage === 'string') assert.ok(error.includes(loserMessage), error);
    else assert.match(error, loserMessage);
}

describe('start_mining: a keyed race on a backend that keeps the first start silently', () => {
    for (const [kind, start, loserMessage] of [
        ['plain calls', plainStart, KEY_REUSED],
        ['task-augmented calls', taskStart, /idempotency_key was already used/],
    ] as const) {
        it(`two ${kind} with one key and other arguments: one gets the workflow, the other KEY_REUSED`, async () => {
            const backend = new MemoryBackend();
            raceStarts(backend, 2, KEY_CLAIM);
            const client = await connect(backend);
            const a = { difficulty: 5, blocks: 2 };
            const b = { difficulty: 6, blocks: 3 };
            const [outcomeA, outcomeB] = await Promise.all([start(client, a), start(client, b)]);
            // Both claims were accepted by the backend (nothing but the read-back told the loser), and one workflow started.
            assert.equal(backend.calls.filter((c) => c.method === 'startNew' && c.args[0] === KEY_CLAIM).length, 2);
            assert.equal(workflowStarts(backend), 1);
            assertOneWinner(backend, [
                { args: a, outcome: outcomeA },
                { args: b, outcome: outcomeB },
            ], loserMessage);
        });
    }

    it('two calls with one key and the same arguments both get the one workflow', async () => {
        const backend = new MemoryBackend();
        raceStarts(backend, 2, KEY_CLAIM);
        const client = await connect(backend);
        const args = { difficulty: 5, blocks: 2 };
        const outcomes = await Promise.all([plainStart(client, args), plainStart(client, args)]);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        assert.deepEqual(outcomes, [{ workflowId: id }, { workflowId: id }]);
        assert.deepEqual(workflows(backend), [id]);
        assert.equal(workflowStarts(backend), 1);
    });

    it('a start refused with 409 because a late start with other arguments landed first is KEY_REUSED', async () => {
        const backend = new MemoryBackend();
        // A start of the claim's previous holder, sent before this call's claim and landing between this call's read and its start.
        onWorkflowStart(backend, async (name, options, startNew) => {
            await startNew(name, { ...options, input: { difficulty: 9, blocks: 1 } });
            return startNew(name, options);
        });
        const client = await connect(backend);
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.ok('error' in outcome && outcome.error.includes(KEY_REUSED), JSON.stringify(outcome));
    });

    it('a start refused with 409 because a late start with the same arguments landed first gets the workflow', async () => {
        const backend = new MemoryBackend();
        onWorkflowStart(backend, async (name, options, startNew) => {
            await startNew(name, options);
            return startNew(name, options);
        });
        const client = await connect(backend);
        assert.deepEqual(await plainStart(client, { difficulty: 5, blocks: 2 }), { workflowId: keyedWorkflowId(SHARED_TENANT, KEY) });
    });

    it('a start that fails for no other call (an outage, no answer) is the start error, after the two finds and one read back; the claim is kept', async () => {
        const backend = new MemoryBackend();
        onWorkflowStart(backend, async () => {
            throw serverError();
        });
        const client = await connect(backend);
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.ok('error' in outcome, JSON.stringify(outcome));
        assert.match(outcome.error, /did not accept it/);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        assert.equal(readsOf(backend, id), 3);
        // The start may still land: no other call may start over it until the claim expires.
        assert.equal(backend.instances.get(keyClaimId(id))?.runtimeStatus, 'Running');
    });

    it('a start that was accepted but whose workflow cannot be read back hands out no id', async () => {
        const backend = new MemoryBackend();
        // Accepted, then gone (as if purged at once): there is nothing to compare the arguments with.
        onWorkflowStart(backend, async (name, options, startNew) => {
            const id = await startNew(name, options);
            backend.instances.delete(id);
            return id;
        });
        const client = await connect(backend);
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.ok('error' in outcome, JSON.stringify(outcome));
        assert.match(outcome.error, /could not be confirmed/);
    });

    it('a call whose find missed the key\'s workflow, which then ended before this call started, is KEY_REUSED: the ended one is not replaced', async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        assert.deepEqual(await plainStart(client, { difficulty: 4, blocks: 1 }), { workflowId: id });
        backend.set(id, { runtimeStatus: 'Completed', output: RESULT });
        // The other call's first read ran before the first call's start was visible (a loaded machine).
        const getStatus = backend.getStatus.bind(backend);
        let missed = false;
        backend.getStatus = async (instanceId) => {
            if (!missed && instanceId === id) {
                missed = true;
                throw notFoundOnRead(instanceId);
            }
            return getStatus(instanceId);
        };
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.ok('error' in outcome && outcome.error.includes(KEY_REUSED), JSON.stringify(outcome));
        const input = backend.instances.get(id)?.input as { difficulty?: number; blocks?: number } | undefined;
        assert.deepEqual({ difficulty: input?.difficulty, blocks: input?.blocks }, { difficulty: 4, blocks: 1 }, 'the first call\'s workflow, as it ran');
        assert.equal(workflowStarts(backend), 1);
    });

    it("a call held between its claim and its start: a racing call with other arguments starts nothing, and gets KEY_REUSED once the holder's workflow is there", async () => {
        // The race of issue 29: on both backends a start replaces an ended instance, so a call that started the key's
        // workflow after another call's run had ended would have replaced it. Now only the claim's holder starts.
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        const claimReads = () => readsOf(backend, keyClaimId(id));
        let holderAtStart = false;
        onWorkflowStart(backend, async (name, options, startNew) => {
            holderAtStart = true;
            // The holder is slow to start: the other call finds nothing, claims, and is held off (its read of the claim).
            await until(() => claimReads() >= 2);
            return startNew(name, options);
        });
        const holder = plainStart(client, { difficulty: 5, blocks: 2 });
        await until(() => holderAtStart);
        const other = await plainStart(client, { difficulty: 4, blocks: 1 });
        assert.ok('error' in other && other.error.includes(KEY_REUSED), JSON.stringify(other));
        assert.deepEqual(await holder, { workflowId: id });
        assert.equal(workflowStarts(backend), 1);
        const input = backend.instances.get(id)?.input as { difficulty?: number; blocks?: number } | undefined;
        assert.deepEqual({ difficulty: input?.difficulty, blocks: input?.blocks }, { difficulty: 5, blocks: 2 }, "the holder's workflow, as it runs");
    });

    it("two calls: one slow to start, the other's run of other arguments ending meanwhile: one id is never handed to both", async () => {
        // The race of issue 29 as it happened: before claims, the slow call's start landed after the other call's run had
        // ended and replaced it, and both were handed the id.
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        let slowAtStart = false;
        let fastDone = false;
        onWorkflowStart(backend, async (name, options, startNew) => {
            if (!slowAtStart) {
                slowAtStart = true;
                // Held until the other call has answered and any run it was handed has ended.
                await until(() => fastDone);
                if (backend.instances.has(id)) backend.set(id, { runtimeStatus: 'Completed', output: RESULT });
            }
            return startNew(name, options);
        });
        const slow = plainStart(client, { difficulty: 5, blocks: 2 });
        await until(() => slowAtStart);
        const fast = await plainStart(client, { difficulty: 4, blocks: 1 });
        fastDone = true;
        const outcomes = [
            { args: { difficulty: 5, blocks: 2 }, outcome: await slow },
            { args: { difficulty: 4, blocks: 1 }, outcome: fast },
        ];
        const handed = outcomes.filter((o) => 'workflowId' in o.outcome);
        assert.equal(handed.length, 1, JSON.stringify(outcomes));
        const input = backend.instances.get(id)?.input as { difficulty?: number; blocks?: number } | undefined;
        assert.deepEqual({ difficulty: input?.difficulty, blocks: input?.blocks }, handed[0]?.args, 'the workflow runs the arguments of the one call handed it');
        assert.equal(workflowStarts(backend), 1);
    });

    it("a call whose find missed the key's workflow, which another call then started and ran to its end, is KEY_REUSED: the ended one is not replaced", async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        // The late call's find reads nothing, and its answer is held until the other call's run has ended.
        const getStatus = backend.getStatus.bind(backend);
        let releaseFind!: () => void;
        const otherRunEnded = new Promise<void>((resolve) => (releaseFind = resolve));
        let held = false;
        backend.getStatus = async (instanceId) => {
            if (held || instanceId !== id) return getStatus(instanceId);
            held = true;
            const answer = await getStatus(instanceId).catch((error: unknown) => error as Error);
            await otherRunEnded;
            if (answer instanceof Error) throw answer;
            return answer;
        };
        const late = plainStart(client, { difficulty: 5, blocks: 2 });
        await until(() => held);
        assert.deepEqual(await plainStart(client, { difficulty: 4, blocks: 1 }), { workflowId: id });
        backend.set(id, { runtimeStatus: 'Completed', output: RESULT });
        releaseFind();
        const outcome = await late;
        assert.ok('error' in outcome && outcome.error.includes(KEY_REUSED), JSON.stringify(outcome));
        const input = backend.instances.get(id)?.input as { difficulty?: number; blocks?: number } | undefined;
        assert.deepEqual({ difficulty: input?.difficulty, blocks: input?.blocks }, { difficulty: 4, blocks: 1 }, "the other call's workflow, as it ran");
        assert.equal(workflowStarts(backend), 1);
    });

    it('a claim that was started but cannot be read back is "unavailable" at once: no holder wait, no key_busy, nothing started', async () => {
        const backend = new MemoryBackend();
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        const getStatus = backend.getStatus.bind(backend);
        let claimReads = 0;
        backend.getStatus = async (instanceId: string) => {
            if (instanceId !== keyClaimId(id)) return getStatus(instanceId);
            claimReads++;
            throw serverError();
        };
        const client = await connect(backend);
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.deepEqual(outcome, { error: BACKEND_UNAVAILABLE });
        // One read of the claim: the call did not wait on a holder it cannot see.
        assert.equal(claimReads, 1);
        assert.equal(workflowStarts(backend), 0);
    });

    it("a call held off by a claim whose holder never starts (it died) is told to retry, and starts nothing", async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        backend.seed(keyClaimId(id), { name: KEY_CLAIM, input: { holder: 'a-call-that-died', workflow_id: id, lifetime_ms: 120_000 } });
        const outcome = await plainStart(client, { difficulty: 5, blocks: 2 });
        assert.ok('error' in outcome, JSON.stringify(outcome));
        assert.match(outcome.error, /Another call with this idempotency_key is starting .* in 120 seconds at most/);
        assert.equal(workflowStarts(backend), 0);
        // Once the claim has ended (expired), the next call with the key claims it and starts.
        backend.set(keyClaimId(id), { runtimeStatus: 'Completed', output: 'expired' });
        assert.deepEqual(await plainStart(client, { difficulty: 5, blocks: 2 }), { workflowId: id });
    });

    it('a call held off by a claim whose holder was refused (it released the claim) claims again and starts', async () => {
        const backend = new MemoryBackend();
        const client = await connect(backend);
        const id = keyedWorkflowId(SHARED_TENANT, KEY);
        const claimId = keyClaimId(id);
        backend.seed(claimId, { name: KEY_CLAIM, input: { holder: 'a-refused-call', workflow_id: id, lifetime_ms: 120_000 } });
        // The holder releases its claim while this call waits for the workflow.
        const getStatus = backend.getStatus.bind(backend);
        backend.getStatus = async (instanceId) => {
            if (instanceId === claimId && readsOf(backend, claimId) === 2) backend.set(claimId, { runtimeStatus: 'Terminated', output: 'released' });
            return getStatus(instanceId);
        };
        assert.deepEqual(await plainStart(client, { difficulty: 5, blocks: 2 }), { workflowId: id });
        assert.equal(workflowStarts(backend), 1);
    });
});
