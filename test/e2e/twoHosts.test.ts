import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { awaitBalancedPartitions, CHAIN_12, crash, executions, invocationHolds, JOINING, type Mined, partitionOwners, pollUntilDone, resultProblems, skipReason, type SpawnedHost, startTwoHosts, type TwoHosts, until, workerName } from '@mcp-mining/testkit';

/**
 * Two hosts on one task hub, on the real Durable extension (issue 21, point 3): the MCP SDK's client over HTTP
 * against two `npm start -- --durable extension` on one Azurite, as two instances of one app. A fanned-out run's
 * MineBlock calls execute on both; either host answers every tool call for every workflow, with the caps,
 * idempotency and tenant scoping of one app; and SIGKILL of either host mid-run loses nothing: the survivor
 * finishes every workflow with the known chain. The TypeScript engine is one host per task hub (it refuses a
 * second: devhost/test/durable.test.ts), so this file runs on the extension only.
 */

/**
 * Runs of CHAIN_12 (4 blocks) in 2^10-nonce ranges, 2 slots a host: the kill tests hold MineBlock on both hosts until
 * the kill, so every run is still running when the victim dies and the victim has work in flight, however fast the
 * machine hashes; once the survivor lets its holds go, the runs cost almost no hashing.
 */
const FANNED_OUT = {
    PARALLEL_RANGES: '8',
    RANGE_SIZE: String(2 ** 10),
    AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions: '2',
};
const KILLED_RUN = { difficulty: 12, blocks: 4 } as const;
const CAP = 3;

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    reason?: string;
    result?: Mined;
    error?: string;
}

const principal = (id: string) => ({ 'x-ms-client-principal-id': id, 'x-ms-client-principal-idp': 'aad' });
const chainOf = (result: Mined | undefined) => result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash }));
const expected = CHAIN_12.map(({ index, nonce, hash }) => ({ index, nonce, hash }));

class Caller {
    private constructor(private readonly client: Client) {}

    static async on(host: SpawnedHost, tenant: string): Promise<Caller> {
        const client = new Client({ name: 'e2e-two-hosts', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers: principal(tenant) } });
        await client.connect(transport);
        return new Caller(client);
    }

    async raw(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
        return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    }

    async status(name: string, args: Record<string, unknown>): Promise<Status> {
        const answer = await this.raw(name, args);
        assert.notEqual(answer.isError, true, JSON.stringify(answer.content));
        return answer.structuredContent as unknown as Status;
    }

    close = () => this.client.close().catch(() => undefined);
}

/** The host's log lines of one workflow's MineBlock executions ("<id>: Function 'MineBlock (Activity)' started"). */
const mineBlocksOf = (host: SpawnedHost, id: string) => host.stderr.split('\n').filter((line) => line.includes(`${id}: Function 'MineBlock (Activity)' started`));
/** Whether the host ran the workflow's orchestrator (its control-queue partition was this host's). */
const orchestrated = (host: SpawnedHost, id: string) => host.stderr.includes(`${id}: Function 'MineChain (Orchestrator)' started`);

describe('two extension hosts on one task hub: a host that joins takes work', { skip: skipReason('extension') }, () => {
    let pair: TwoHosts;
    let caller: Caller | undefined;
    before(async () => {
        pair = await startTwoHosts('join', { ...JOINING.env, WAIT_BUDGET_SECONDS: '0' });
        // Both hosts ready: each runs its task hub worker and holds its two partitions (the second steals its share
        // over tens of seconds; until then the first orchestrates everything).
        await awaitBalancedPartitions(pair);
    });
    after(async () => {
        await caller?.close();
        await pair?.stop();
    });

    test("the first fanned-out run after both hosts are ready executes ranges on both, with the known chain", async () => {
        const [a, b] = pair.hosts;
        caller = await Caller.on(a, 'alice');
        // MineBlock held on both. A block searches its range 0 alone first (slowStart): once that is let go, the
        // window of 4 opens, the orchestrating host fills its two slots, and the other takes the ranges left
        // waiting at its next poll. Both hold one once it has; then every range runs.
        const holds = pair.hosts.map((host) => invocationHolds(host.url));
        const heldOnEach = () => Promise.all(holds.map((h) => h.held('MineBlock')));
        await Promise.all(holds.map((h) => h.hold('MineBlock')));
        let started: Status;
        try {
            started = await caller.status('start_mining', JOINING.run);
            await until(async () => (await heldOnEach()).some((ids) => ids.length > 0), 'range 0 held on a host', 60_000, 50);
            const first = (await heldOnEach()).findIndex((ids) => ids.length > 0);
            await holds[first]!.release('MineBlock');
            await until(async () => (await heldOnEach()).every((ids) => ids.length > 0), 'a range held on each host', 60_000, 50);
        } finally {
            await Promise.all(holds.map((h) => h.stop('MineBlock')));
        }
        const done = await pollUntilDone((id) => caller!.status('get_mining_result', { workflow_id: id }), started.workflow_id);
        assert.equal(done.status, 'completed', done.error);
        assert.deepEqual(chainOf(done.result), CHAIN_12.slice(0, JOINING.run.blocks).map(({ index, nonce, hash }) => ({ index, nonce, hash })));
        assert.deepEqual(resultProblems(done.result, JOINING.run.difficulty, JOINING.run.blocks), []);
        const split = pair.hosts.map((host) => mineBlocksOf(host, started.workflow_id).length);
        const orchestrator = pair.hosts.findIndex((host) => orchestrated(host, started.workflow_id));
        process.stdout.write(`# MineBlock executions: host A ${split[0]}, host B ${split[1]} (orchestrated on host ${'AB'[orchestrator] ?? '?'})\n`);
        assert.ok(split.every((n) => n > 0), `MineBlock ran on both hosts: host A ${split[0]}, host B ${split[1]}`);
        // The WebJobs SDK's line for each execution, as the Functions host logs it, is in both logs too.
        for (const host of [a, b]) assert.ok(executions(host, 'MineBlock').length > 0);
        // Two workers by name, and each control-queue partition leased by one of them (with the machine's name
        // for both, the default, each host took every partition for its own).
        const workers = pair.hosts.map(workerName);
        assert.equal(new Set(workers).size, 2, `two worker names: ${workers.join(', ')}`);
        const owners = await partitionOwners(pair);
        assert.equal(owners.length, 4, 'four control-queue partitions');
        for (const owner of owners) assert.ok(workers.includes(owner), `partition owner ${owner} is one of ${workers.join(', ')}`);
    });
});

describe('two extension hosts on one task hub', { skip: skipReason('extension') }, () => {
    let pair: TwoHosts;
    const callers: Caller[] = [];
    const caller = async (host: SpawnedHost, tenant = 'alice') => {
        const made = await Caller.on(host, tenant);
        callers.push(made);
        return made;
    };

    before(async () => {
        pair = await startTwoHosts('pair', { ...FANNED_OUT, WAIT_BUDGET_SECONDS: '0', MAX_ACTIVE_WORKFLOWS: String(CAP), WEBSITE_AUTH_ENABLED: 'True' });
    });
    after(async () => {
        await Promise.all(callers.map((c) => c.close()));
        await pair?.stop();
    });

    test('either host answers every tool call; caps, idempotency and tenant scoping hold across hosts', async () => {
        const [a, b] = pair.hosts;
        const [aliceOnA, aliceOnB, bobOnA, bobOnB] = [await caller(a), await caller(b), await caller(a, 'bob'), await caller(b, 'bob')];
        const long = { difficulty: 32, blocks: 1 };
        // The runs' ranges wait in flight on both hosts: they stay running and hash nothing; the kill tests hold theirs too.
        const holds = pair.hosts.map((host) => invocationHolds(host.url));
        await Promise.all(holds.map((h) => h.hold('MineBlock')));
        try {
            // Idempotency: one key on A then B is one workflow, read and listed from either host.
            const keyed = await aliceOnA.status('start_mining', { ...long, idempotency_key: 'across-hosts' });
            const again = await aliceOnB.status('start_mining', { ...long, idempotency_key: 'across-hosts' });
            assert.equal(again.workflow_id, keyed.workflow_id);
            for (const c of [aliceOnA, aliceOnB]) assert.equal((await c.status('get_mining_result', { workflow_id: keyed.workflow_id })).status, 'running');

            // Tenant scoping: bob sees none of alice's workflows, on either host, and cannot cancel them.
            for (const c of [bobOnA, bobOnB]) {
                assert.equal((await c.status('get_mining_result', { workflow_id: keyed.workflow_id })).status, 'not_found');
                assert.equal((await c.status('cancel_mining', { workflow_id: keyed.workflow_id })).status, 'not_found');
            }

            // The cap counts alice's workflows wherever they were started: B, then A, then the refusal on B.
            const ids = [keyed.workflow_id];
            ids.push((await aliceOnB.status('start_mining', long)).workflow_id);
            ids.push((await aliceOnA.status('start_mining', long)).workflow_id);
            const refused = await aliceOnB.raw('start_mining', long);
            assert.equal(refused.isError, true, JSON.stringify(refused.structuredContent));
            assert.match(JSON.stringify(refused.content), new RegExp(`MAX_ACTIVE_WORKFLOWS = ${CAP}`));
            // bob's cap is his own.
            const bobs = await bobOnA.status('start_mining', long);
            assert.equal(bobs.status, 'running');

            // Cancelled on the other host than the one that started each; read back as cancelled on both.
            const cancelOn = (i: number) => (i % 2 === 0 ? aliceOnB : aliceOnA);
            for (const [i, id] of ids.entries()) await cancelOn(i).status('cancel_mining', { workflow_id: id });
            await bobOnB.status('cancel_mining', { workflow_id: bobs.workflow_id });
            for (const id of ids) {
                for (const c of [aliceOnA, aliceOnB]) {
                    const ended = await pollUntilDone((w) => c.status('get_mining_result', { workflow_id: w }), id, 120_000);
                    assert.equal(ended.status, 'failed');
                    assert.equal(ended.reason, 'cancelled');
                }
            }
            // Room again: a start on either host is accepted.
            const after = await aliceOnB.status('start_mining', { difficulty: 8, blocks: 1 });
            assert.equal(after.status, 'running');
        } finally {
            await Promise.all(holds.map((h) => h.stop('MineBlock')));
        }
    });

    test('SIGKILL of host A mid-run: host B finishes every workflow with the known chain', async () => {
        await killMidRun(pair, 0, caller);
    });
});

describe('two extension hosts on one task hub, host B killed', { skip: skipReason('extension') }, () => {
    let pair: TwoHosts;
    const callers: Caller[] = [];
    before(async () => {
        pair = await startTwoHosts('pairb', { ...FANNED_OUT, WAIT_BUDGET_SECONDS: '0', WEBSITE_AUTH_ENABLED: 'True' });
    });
    after(async () => {
        await Promise.all(callers.map((c) => c.close()));
        await pair?.stop();
    });

    test('SIGKILL of host B mid-run: host A finishes every workflow with the known chain', async () => {
        await killMidRun(pair, 1, async (host, tenant) => {
            const made = await Caller.on(host, tenant);
            callers.push(made);
            return made;
        });
    });
});

/**
 * Once each host leases two of the four control-queue partitions, and with MineBlock held on both hosts, starts runs
 * of CHAIN_12 on both hosts, a tenant each (so no cap refuses one), until the victim orchestrates at least one (each
 * run has an even chance) and at least four wait on their first range (more than the survivor's two slots, so the
 * victim takes some); kills the victim once it holds a MineBlock call in flight, lets the survivor's holds go, then
 * polls every run on the survivor to the end. Measures the takeover: from the kill to the survivor's first line
 * about each orphaned workflow, and to the last completion.
 */
async function killMidRun(pair: TwoHosts, victimIndex: 0 | 1, caller: (host: SpawnedHost, tenant: string) => Promise<Caller>): Promise<void> {
    const victim = pair.hosts[victimIndex];
    const survivor = pair.hosts[1 - victimIndex] as SpawnedHost;
    const holds = pair.hosts.map((host) => invocationHolds(host.url));
    await Promise.all(holds.map((h) => h.hold('MineBlock')));
    const runs: { id: string; tenant: string }[] = [];
    const startRun = async (i: number) => {
        const tenant = `kill${victimIndex}-${i}`;
        const on = await caller(pair.hosts[i % 2] as SpawnedHost, tenant);
        runs.push({ id: (await on.status('start_mining', KILLED_RUN)).workflow_id, tenant });
    };
    const placed = () => runs.every(({ id }) => pair.hosts.some((host) => orchestrated(host, id)));
    const orphans = () => runs.filter(({ id }) => orchestrated(victim, id));
    // Until the second host has stolen its share of the partitions, the first orchestrates every run.
    const balancing = Date.now();
    await awaitBalancedPartitions(pair);
    process.stdout.write(`# the partitions were two and two ${Date.now() - balancing} ms after the test began\n`);
    const deadline = Date.now() + 60_000;
    while (orphans().length === 0 || runs.length < 4) {
        assert.ok(runs.length < 8 && Date.now() < deadline, `the victim orchestrated none of ${runs.length} runs`);
        await Promise.all([0, 1].map((k) => startRun(runs.length + k)));
        while (!placed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const orphaned = orphans().map(({ id }) => id);
    const inFlight = await holds[victimIndex]!.waitForHeld('MineBlock', 1, Math.max(0, deadline - Date.now()));
    const readers = await Promise.all(runs.map(({ tenant }) => caller(survivor, tenant)));
    const status = (i: number) => readers[i]!.status('get_mining_result', { workflow_id: runs[i]!.id });
    const stillRunning = (await Promise.all(runs.map((_, i) => status(i)))).filter((s) => s.status === 'running').length;

    const seenFrom = survivor.stderr.length;
    const killedAt = Date.now();
    await crash(victim);
    assert.throws(() => process.kill(victim.pid!, 0), 'the victim is gone');
    await holds[1 - victimIndex]!.stop('MineBlock');

    // The survivor's first lines about each orphaned workflow after the kill (looked for every 200 ms): an
    // activity (from the shared work-item queue, at once) and its orchestrator (once its partition is the survivor's).
    const firstSeen = { activity: new Map<string, number>(), orchestrator: new Map<string, number>() };
    const watch = setInterval(() => {
        const fresh = survivor.stderr.slice(seenFrom);
        for (const id of orphaned) {
            if (!firstSeen.activity.has(id) && fresh.includes(`${id}: Function 'MineBlock (Activity)' started`)) firstSeen.activity.set(id, Date.now() - killedAt);
            // Any episode's line ("awaited", "completed"): a replay's "started" is not logged (traceReplayEvents off).
            if (!firstSeen.orchestrator.has(id) && fresh.includes(`${id}: Function 'MineChain (Orchestrator)'`)) firstSeen.orchestrator.set(id, Date.now() - killedAt);
        }
    }, 200);
    try {
        const results = await Promise.all(runs.map((run, i) => pollUntilDone(() => status(i), run.id, 300_000)));
        const completedAfter = Date.now() - killedAt;
        const times = (seen: Map<string, number>) => orphaned.map((id) => (seen.has(id) ? `${seen.get(id)} ms` : 'none')).join(', ');
        process.stdout.write(
            `# killed host ${'AB'[victimIndex]} with ${stillRunning} of ${runs.length} runs running, ${orphaned.length} orchestrated by it, ` +
                `${inFlight.length} MineBlock call(s) in flight on it; ` +
                `the survivor's first MineBlock of each after ${times(firstSeen.activity)}, its orchestrator after ${times(firstSeen.orchestrator)}; ` +
                `all completed ${completedAfter} ms after the kill\n`
        );
        for (const [i, done] of results.entries()) {
            assert.equal(done.status, 'completed', `${runs[i]!.id}: ${done.error}`);
            assert.deepEqual(chainOf(done.result), expected, `${runs[i]!.id} has the known chain`);
            assert.deepEqual(resultProblems(done.result, KILLED_RUN.difficulty, KILLED_RUN.blocks), []);
        }
        assert.ok(stillRunning > 0, 'runs were still running at the kill');
    } catch (error) {
        // Both logs, for the failure's story (the survivor's history of the workflow, the victim's last lines).
        const folder = mkdtempSync(join(tmpdir(), 'two-hosts-'));
        pair.hosts.forEach((host, i) => writeFileSync(join(folder, `host-${'AB'[i]}.log`), host.stderr));
        process.stdout.write(`# the two hosts' logs: ${folder}\n`);
        throw error;
    } finally {
        clearInterval(watch);
    }
}
