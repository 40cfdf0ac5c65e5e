import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type CrashableAzurite, describeOnEachBackend, fixtureApp, quickRedelivery, type SpawnedHost, spawnHost, startCrashableAzurite, uniqueHubName } from '@mcp-mining/testkit';

/**
 * Azurite killed (SIGKILL) right after workflows completed, then started again on its data: it saves to disk
 * only every 5 s, so what it acknowledged since is gone. Every workflow the host answered `Completed` must
 * still read `Completed`, with its output, afterwards and from storage alone (a new host process).
 * The TypeScript engine writes back what the store lost (devhost/durable/tsEngine/engine/recentlyEnded.ts).
 * The real extension on Azurite does not: what it lost reads an older state (`Running`, `Pending`) and
 * stays so (its queue messages are gone too); that difference is asserted here and in docs/local-host.md.
 */

const PER_ROUND = 24;

interface Status {
    runtimeStatus: string;
    output: unknown;
}

describeOnEachBackend('Azurite killed right after completions', (backend) => {
    let azurite: CrashableAzurite;
    let host: SpawnedHost;
    const hub = uniqueHubName('killed');
    const spawn = () =>
        spawnHost({
            app: fixtureApp('durable-app'),
            storage: 'azure',
            durable: backend,
            env: { TASKHUB_NAME: hub, AzureWebJobsStorage: azurite.connectionString, ...quickRedelivery(backend) },
        });
    const status = async (id: string): Promise<Status | undefined> => {
        const res = await fetch(`${host.url}/api/instances/${id}`);
        const text = await res.text();
        return res.status === 200 && text ? (JSON.parse(text) as Status | null) ?? undefined : undefined;
    };

    before(async () => {
        azurite = await startCrashableAzurite(backend === 'ts' ? 'table' : 'all');
        host = await spawn();
    });
    after(async () => {
        await host?.stop();
        await azurite?.stop();
    });

    test('every workflow answered Completed reads Completed from storage after the crash', async (t) => {
        const completed = new Map<string, unknown>();
        const neverCompleted: string[] = [];
        for (let round = 0; round < (backend === 'ts' ? 3 : 2); round++) {
            const expected = new Map<string, unknown>();
            await Promise.all(
                Array.from({ length: PER_ROUND }, async (_, i) => {
                    const names = [`r${round}w${i}`, 'x'];
                    const res = await fetch(`${host.url}/api/orchestrators/Chain`, {
                        method: 'POST',
                        headers: { 'content-type': 'application/json' },
                        body: JSON.stringify(names),
                    });
                    assert.equal(res.status, 202);
                    const { id } = (await res.json()) as { id: string };
                    expected.set(id, names.map((name) => `Hello ${name}!`));
                })
            );
            const pending = new Set(expected.keys());
            const deadline = Date.now() + 120_000;
            while (pending.size > 0 && Date.now() < deadline) {
                for (const id of [...pending]) {
                    if ((await status(id))?.runtimeStatus === 'Completed') {
                        pending.delete(id);
                        completed.set(id, expected.get(id));
                    }
                }
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            // Before any crash, and on the TypeScript engine always, every workflow completes. The real extension
            // sometimes leaves a workflow started right after a crash unfinished (1 of 24 in a CI run, still so after 120 s):
            // never answered Completed, so outside this test's claim; counted, not required.
            if (round === 0 || backend === 'ts') assert.deepEqual([...pending], [], `round ${round}: not completed`);
            neverCompleted.push(...pending);
            // Within Azurite's 5 s between saves of the last completions.
            await azurite.crashAndRestart();
        }
        if (neverCompleted.length > 0) t.diagnostic(`${backend}: ${neverCompleted.length} started after a crash never completed: ${neverCompleted.join(', ')}`);

        // Whatever the host does to recover, it has the time it needs; then only storage speaks.
        await new Promise((resolve) => setTimeout(resolve, 8000));
        const firstLog = host.stderr;
        await host.stop(20_000);
        host = await spawn();

        const lost: string[] = [];
        for (const [id, output] of completed) {
            const read = await status(id);
            if (read?.runtimeStatus === 'Completed') assert.deepEqual(read.output, output, id);
            else lost.push(`${id}: ${read?.runtimeStatus ?? 'not found'}`);
        }
        const wroteBack = (firstLog.match(/\((Completed)\) was [^;]*; wrote it back from memory/g) ?? []).length;
        t.diagnostic(`${backend}: ${completed.size} completed, ${lost.length} lost, ${wroteBack} written back; lost: ${lost.join(', ')}`);
        if (backend === 'ts') {
            assert.deepEqual(lost, []);
            // The crashes did take acknowledged writes with them: the write-back is what kept them.
            assert.ok(wroteBack > 0, 'no completed instance was missing after the crashes; the test did not test anything');
            return;
        }
        // The real extension on Azurite, the oracle, measured: the queue messages that would finish them went
        // with the crash, so those it lost read an older state (Running, Pending) or none at all when the
        // instance row itself went, and stay so past the redelivery timeout (10 s here).
        await new Promise((resolve) => setTimeout(resolve, 30_000));
        const later: string[] = [];
        for (const entry of lost) {
            const id = entry.split(':')[0]!;
            const read = await status(id);
            if (read?.runtimeStatus === 'Completed') assert.deepEqual(read.output, completed.get(id), id);
            else later.push(`${id}: ${read?.runtimeStatus ?? 'not found'}`);
        }
        t.diagnostic(`extension: ${later.length} of them still not Completed 30 s later`);
        for (const entry of [...lost, ...later]) assert.match(entry, /: (Running|Pending|not found)$/, entry);
    });
});
