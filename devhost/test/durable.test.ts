import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_TAKEOVER_MS, fixtureApp, quickRedelivery, skipReason, type SpawnedHost, spawnHost, startTestAzurite, type TestAzurite, uniqueHubName, until } from '@mcp-mining/testkit';

/**
 * Conformance of the local host's Durable Functions support. The fixture app drives the real
 * `DurableClient` from HTTP functions, so every call goes client → management API → engine → app.
 * The suite runs on both stores: Azure Tables (Azurite) as `npm start` uses, and process memory.
 */

interface Status {
    name: string;
    instanceId: string;
    runtimeStatus: string;
    input: unknown;
    output: unknown;
    customStatus: unknown;
    createdTime: string;
}

class Fixture {
    constructor(readonly host: SpawnedHost) {}

    async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
        const res = await fetch(`${this.host.url}/api/${path}`, {
            method,
            ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
        });
        const text = await res.text();
        return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
    }

    async start(name: string, input?: unknown, instanceId?: string): Promise<string> {
        const { status, json } = await this.call('POST', `orchestrators/${name}${instanceId ? `/${instanceId}` : ''}`, input);
        assert.equal(status, 202, JSON.stringify(json));
        return (json as { id: string }).id;
    }

    async status(id: string): Promise<Status> {
        const { status, json } = await this.call('GET', `instances/${id}`);
        assert.equal(status, 200, JSON.stringify(json));
        return json as Status;
    }

    /** Polls until the instance reaches a status in `wanted` (a final one by default). */
    async until(id: string, wanted = ['Completed', 'Failed', 'Terminated'], timeoutMs = 60_000): Promise<Status> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const status = await this.status(id);
            if (wanted.includes(status.runtimeStatus)) return status;
            if (Date.now() > deadline) assert.fail(`${id} is still ${status.runtimeStatus}, wanted ${wanted.join('|')}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
        }
    }

    async run(name: string, input?: unknown): Promise<Status> {
        return this.until(await this.start(name, input));
    }

    /** The management API as the extension serves it, without the client library in between. */
    webhook(path: string, init: RequestInit = {}): Promise<Response> {
        return fetch(`${this.host.url}/runtime/webhooks/durabletask/${path}`, init);
    }
}

// The TypeScript engine on both of its stores, and the real Durable extension (the oracle) on Azurite.
const BACKENDS = [
    { durable: 'ts', storage: 'azure' },
    { durable: 'ts', storage: 'memory' },
    { durable: 'extension', storage: 'azure' },
] as const;

for (const { durable, storage } of BACKENDS) {
    describe(`Durable Functions on the local host (${durable === 'ts' ? `${storage} store` : 'the real extension'})`, { skip: skipReason(durable) }, () => {
        let azurite: TestAzurite | undefined;
        let fx: Fixture;

        before(async () => {
            if (storage === 'azure') azurite = await startTestAzurite(durable === 'extension' ? 'all' : 'table');
            const host = await spawnHost({
                app: fixtureApp('durable-app'),
                storage,
                durable,
                env: { TASKHUB_NAME: uniqueHubName('conf'), AzureWebJobsStorage: azurite?.connectionString ?? undefined },
            });
            fx = new Fixture(host);
        });
        after(async () => {
            await fx?.host.stop();
            await azurite?.stop();
        });

        test('function chaining, with progress in the custom status', async () => {
            const status = await fx.run('Chain', ['Tokyo', 'Seattle', 'London']);
            assert.equal(status.runtimeStatus, 'Completed');
            assert.deepEqual(status.output, ['Hello Tokyo!', 'Hello Seattle!', 'Hello London!']);
            assert.deepEqual(status.customStatus, { done: 3, total: 3 });
            assert.deepEqual(status.input, ['Tokyo', 'Seattle', 'London']);
        });

        test('fan-out/fan-in carries values of every JSON type through activities unchanged', async () => {
            const values = ['123', 42, { a: [1, 'x'] }, 'plain', null, false, 0, '', 'ünïcødé ✓'];
            const status = await fx.run('FanOut', values);
            assert.deepEqual(status.output, values);
        });

        test('an activity can take a durable client binding too', async () => {
            assert.equal((await fx.run('AsksItsStatus')).output, 'Running');
        });

        test('a durable timer fires, and the orchestration clock moves with it', async () => {
            const status = await fx.run('Timer', 1500);
            assert.equal(status.runtimeStatus, 'Completed');
            // On the real extension a timer can fire up to a second early: the Azure Storage provider hides
            // the timer's queue message for whole seconds only (seen here: 1000 ms timers resumed after ~40 ms).
            const earliest = durable === 'extension' ? 1500 - 1000 : 1500;
            assert.ok((status.output as number) >= earliest, `clock advanced ${String(status.output)} ms`);
        });

        test('an external event wins a race against a timer; the timer is canceled and later work is numbered right', async () => {
            const id = await fx.start('Approval', 60_000);
            await fx.until(id, ['Running']);
            assert.equal((await fx.call('POST', `instances/${id}/events/approve`, { by: 'Ann' })).status, 202);
            const status = await fx.until(id);
            assert.deepEqual(status.output, { approved: true, greeting: 'Hello Ann!' });
        });

        test('a timer wins a race against an event that never comes', async () => {
            const status = await fx.run('Approval', 100);
            assert.deepEqual(status.output, { approved: false });
        });

        test('events of the same name are taken in the order they were raised', async () => {
            const id = await fx.start('Collect', 3);
            for (const value of [1, 'two', { three: 3 }]) await fx.call('POST', `instances/${id}/events/item`, value);
            assert.deepEqual((await fx.until(id)).output, [1, 'two', { three: 3 }]);
        });

        test('activity retries: a call that fails twice succeeds on its third attempt', async () => {
            const status = await fx.run('RetryActivity', { failures: 2, attempts: 3 });
            assert.deepEqual(status.output, { attempt: 3, after: 'after' });
        });

        test('activity retries: when every attempt fails, the orchestrator sees the last failure', async () => {
            const status = await fx.run('RetryActivity', { failures: 5, attempts: 2 });
            assert.deepEqual(status.output, { gaveUp: "Activity function 'FailTimes' failed:  attempt 2 failed " });
        });

        test('retried calls in parallel', async () => {
            assert.deepEqual((await fx.run('RetryFanOut')).output, [2, 3]);
        });

        test('sub-orchestrations: plain, retried, and with an explicit instance id', async () => {
            const id = await fx.start('Parent');
            const status = await fx.until(id);
            assert.deepEqual(status.output, { chained: ['Hello sub!'], flaky: 'child run 2', named: ['Hello named!'] });
            const named = await fx.status(`${id}-child`);
            assert.equal(named.name, 'Chain');
            assert.equal(named.runtimeStatus, 'Completed');
        });

        test('continueAsNew starts a fresh execution with the new input until the orchestrator returns', async () => {
            const status = await fx.run('Counter', { n: 0, target: 3 });
            assert.equal(status.output, 3);
            assert.deepEqual(status.input, { n: 3, target: 3 });
            assert.deepEqual(status.customStatus, { n: 3 });
        });

        test('a failing activity can be caught; an uncaught one fails the orchestration with its message', async () => {
            const status = await fx.run('Failing');
            assert.equal(status.runtimeStatus, 'Failed');
            assert.deepEqual(status.customStatus, { caught: "Activity function 'Boom' failed:  caught me " });
            assert.match(String(status.output), /^Orchestrator function 'Failing' failed: Activity function 'Boom' failed: +uncaught/);
        });

        // The real extension never reports the failed call to the orchestrator, which stays Running (docs/local-host.md).
        const missingSkip = durable === 'extension' ? 'the real extension leaves the orchestration Running' : false;
        test('calling an activity that does not exist fails the orchestration', { skip: missingSkip }, async () => {
            const status = await fx.run('CallsMissing');
            assert.equal(status.runtimeStatus, 'Failed');
            assert.match(String(status.output), /The function 'NoSuchActivity' doesn't exist/);
        });

        if (durable === 'ts') {
            test('entities are refused with an error that names them as unsupported', async () => {
                const status = await fx.run('UsesEntity');
                assert.equal(status.runtimeStatus, 'Failed');
                assert.match(String(status.output), /entities .* are not supported by the local host/);
                const read = await fx.call('GET', 'entities/CounterEntity/one');
                assert.equal(read.status, 500);
                assert.match(JSON.stringify(read.json), /entities are not supported by the local host/);
            });
            test('callHttp is refused with an error that names it as unsupported', async () => {
                const status = await fx.run('CallsHttp', `${fx.host.url}/admin/host/status`);
                assert.equal(status.runtimeStatus, 'Failed');
                assert.match(String(status.output), /callHttp is not supported by the local host/);
            });
        } else {
            test('callHttp runs on the real extension: the extension makes the request and hands back the response', async () => {
                const status = await fx.run('CallsHttp', `${fx.host.url}/admin/host/status`);
                assert.equal(status.runtimeStatus, 'Completed', JSON.stringify(status.output));
                assert.deepEqual(status.output, { statusCode: 200, content: { state: 'Running' } });
            });

            test('entities run on the real extension: an orchestration signals one, the client reads its state', async () => {
                const status = await fx.run('UsesEntity');
                assert.equal(status.runtimeStatus, 'Completed');
                const read = await fx.call('GET', 'entities/CounterEntity/one');
                assert.equal(read.status, 200);
                assert.deepEqual(read.json, { entityExists: true, entityState: 1 });
            });
        }

        // The real extension moves large payloads to blobs; the TypeScript engine refuses them (docs/local-host.md).
        if (storage === 'azure' && durable === 'ts') {
            test('state too large for table storage fails the orchestration with a clear error, once', async () => {
                const status = await fx.run('TooLarge', 600_000);
                assert.equal(status.runtimeStatus, 'Failed');
                assert.match(String(status.output), /^Orchestrator function 'TooLarge' failed: .*too large for Azure Table storage/);
            });
        }

        test('terminate ends a running instance with the reason as its output', async () => {
            const id = await fx.start('Forever');
            await fx.until(id, ['Running']);
            await fx.call('POST', `instances/${id}/terminate?reason=${encodeURIComponent('no longer needed')}`);
            const status = await fx.until(id);
            assert.equal(status.runtimeStatus, 'Terminated');
            assert.equal(status.output, 'no longer needed');
            // Terminating a finished instance is accepted by the client (the API answers 410 Gone).
            assert.equal((await fx.call('POST', `instances/${id}/terminate`)).status, 202);
            assert.equal((await fx.webhook(`instances/${id}/terminate`, { method: 'POST' })).status, 410);
        });

        test('suspend holds events until resume', async () => {
            const id = await fx.start('Forever');
            await fx.until(id, ['Running']);
            await fx.call('POST', `instances/${id}/suspend`);
            await fx.until(id, ['Suspended']);
            await fx.call('POST', `instances/${id}/events/go`, 'now');
            await new Promise((resolve) => setTimeout(resolve, 200));
            assert.equal((await fx.status(id)).runtimeStatus, 'Suspended');
            await fx.call('POST', `instances/${id}/resume`);
            assert.deepEqual((await fx.until(id)).output, { value: 'now' });
        });

        test('list and filter queries', async () => {
            const since = new Date(Date.now() - 1000).toISOString();
            const done = await fx.start('Chain', ['list']);
            const waiting = await fx.start('Forever');
            await fx.until(done);
            await fx.until(waiting, ['Running']);

            const all = (await fx.call('GET', 'instances')).json as Status[];
            assert.ok(all.some((s) => s.instanceId === done) && all.some((s) => s.instanceId === waiting));

            const running = (await fx.call('GET', 'instances?status=Running')).json as Status[];
            assert.ok(running.some((s) => s.instanceId === waiting));
            assert.ok(!running.some((s) => s.instanceId === done));

            const recent = (await fx.call('GET', `instances?from=${encodeURIComponent(since)}&status=Completed,Running`)).json as Status[];
            assert.ok(recent.some((s) => s.instanceId === done) && recent.some((s) => s.instanceId === waiting));
            assert.ok(recent.every((s) => Date.parse(s.createdTime) >= Date.parse(since) - 1000));

            // Pages: getStatusAll follows the continuation token to the end.
            const page = await fx.webhook('instances/?top=1');
            assert.equal(((await page.json()) as unknown[]).length, 1);
            assert.ok(page.headers.get('x-ms-continuation-token'));
            await fx.call('POST', `instances/${waiting}/terminate`);
        });

        test('purge removes an instance and its history', async () => {
            const status = await fx.run('Chain', ['purge me']);
            assert.deepEqual((await fx.call('DELETE', `instances/${status.instanceId}`)).json, { instancesDeleted: 1 });
            const gone = await fx.call('GET', `instances/${status.instanceId}`);
            assert.equal(gone.status, 500);
            assert.match(JSON.stringify(gone.json), /HTTP 404/);
            assert.equal((await fx.webhook(`instances/${status.instanceId}`, { method: 'DELETE' })).status, 404);
        });

        test('the management API answers with the extension status codes and payloads', async () => {
            assert.equal((await fx.webhook('instances/no-such-instance')).status, 404);

            const waiting = await fx.start('Forever', null, `fixed-${Date.now()}`);
            await fx.until(waiting, ['Running']);
            const running = await fx.webhook(`instances/${waiting}`);
            assert.equal(running.status, 202);
            assert.equal(running.headers.get('retry-after'), '5');
            assert.ok(running.headers.get('location')?.includes(`/instances/${waiting}`));
            const body = (await running.json()) as Status;
            assert.equal(body.runtimeStatus, 'Running');
            assert.match(body.createdTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

            // Starting an id that is still running is refused; the client reports it as an error.
            assert.equal((await fx.call('POST', `orchestrators/Forever/${waiting}`)).status, 500);
            // 409, as the real extension answers (measured: devhost/test/backendConformance.test.ts).
            assert.equal((await fx.webhook(`orchestrators/Forever/${waiting}`, { method: 'POST' })).status, 409);

            assert.equal((await fx.webhook(`instances/${waiting}/raiseEvent/go`, { method: 'POST', body: '1' })).status, 400);
            const raised = await fx.webhook(`instances/${waiting}/raiseEvent/go`, {
                method: 'POST',
                body: '"ok"',
                headers: { 'content-type': 'application/json' },
            });
            assert.equal(raised.status, 202);
            await fx.until(waiting);
            assert.equal((await fx.webhook(`instances/${waiting}/raiseEvent/go`, { method: 'POST' })).status, 410);

            // The real extension accepts a start of an orchestrator the app lacks; the TypeScript engine refuses it (docs/local-host.md).
            const unknown = await fx.webhook('orchestrators/NoSuchOrchestrator', { method: 'POST' });
            assert.equal(unknown.status, durable === 'extension' ? 202 : 400);

            const history = (await (await fx.webhook(`instances/${waiting}?showHistory=true&showHistoryOutput=true`)).json()) as {
                historyEvents: { EventType: string }[];
            };
            assert.deepEqual(
                history.historyEvents.map((e) => e.EventType),
                ['ExecutionStarted', 'EventRaised', 'ExecutionCompleted']
            );
        });

        test('createCheckStatusResponse and waitForCompletionOrCreateCheckStatusResponse', async () => {
            const check = await fx.call('POST', 'check/Chain', ['check']);
            assert.equal(check.status, 202);
            const links = check.json as Record<string, string>;
            assert.ok(links.statusQueryGetUri?.startsWith(`${fx.host.url}/runtime/webhooks/durabletask/instances/${links.id}`));
            const viaLink = await fetch(links.statusQueryGetUri ?? '');
            assert.ok([200, 202].includes(viaLink.status));

            const waited = await fx.call('POST', 'wait/Chain', ['wait']);
            assert.equal(waited.status, 200);
            assert.deepEqual(waited.json, ['Hello wait!']);
        });
    });
}

for (const durable of ['ts', 'extension'] as const) {
    describe(`Durable state survives a crash of the host (Azurite) [${durable}]`, { skip: skipReason(durable) }, () => {
        let azurite: TestAzurite;
        let host: SpawnedHost;
        const dir = mkdtempSync(join(tmpdir(), 'devhost-restart-'));
        const hub = uniqueHubName('crash');

        before(async () => {
            azurite = await startTestAzurite(durable === 'extension' ? 'all' : 'table');
            host = await spawnHost({
                app: fixtureApp('durable-app'),
                storage: 'azure',
                durable,
                env: { TASKHUB_NAME: hub, AzureWebJobsStorage: azurite.connectionString, ...quickRedelivery(durable, '00:00:05') },
            });
        });
        after(async () => {
            await host?.stop();
            await azurite?.stop();
            rmSync(dir, { recursive: true, force: true });
        });

        test('after SIGKILL mid-orchestration, a restarted host finishes every instance, loses nothing and runs nothing twice', async () => {
            let fx = new Fixture(host);
            const finished = await fx.run('Chain', ['before the crash']);
            const file = join(dir, 'steps.txt');
            const steps = 8;
            const crashing = await fx.start('Durable', { file, steps, ms: 250 });
            const waiting = await fx.start('Forever');
            const timer = await fx.start('Timer', 1500);

            // Kill it once a few steps have been recorded, in the middle of the chain (however many steps a slow
            // machine let pass between two reads).
            await until(
                async () => (((await fx.status(crashing)).customStatus as { steps?: number } | null)?.steps ?? 0) >= 2,
                'the orchestration reaches step 2',
                60_000
            );
            await host.kill();
            // Proof that the kill came mid-run: fewer steps had run than the chain has (nothing runs while the host is down).
            const ranBeforeKill = readFileSync(file, 'utf8').trim().split('\n').length;
            assert.ok(ranBeforeKill >= 2 && ranBeforeKill < steps, `${ranBeforeKill} of ${steps} steps had run at the kill`);

            host = await host.restart();
            fx = new Fixture(host);
            if (durable === 'ts') await host.waitForOutput(/Resumed \d+ unfinished orchestration/, 60_000);
            // On the extension, messages the dead host had read ahead come back after the control queue's minute.
            const takeover = durable === 'extension' ? EXTENSION_TAKEOVER_MS : 60_000;

            const done = await fx.until(crashing, undefined, takeover);
            assert.equal(done.runtimeStatus, 'Completed');
            assert.deepEqual(done.output, Array.from({ length: steps }, (_, i) => `step ${i}`));
            // Activities are at least once: each step ran, and at most the one in flight at the kill ran again.
            const lines = readFileSync(file, 'utf8').trim().split('\n');
            for (let i = 0; i < steps; i++) assert.ok(lines.includes(`step ${i}`), `step ${i} ran`);
            assert.ok(lines.length <= steps + 1, `ran ${lines.length} times for ${steps} steps: ${lines.join(', ')}`);

            // A finished result is still there; a waiting instance still waits and still answers; a timer still fires.
            assert.deepEqual((await fx.status(finished.instanceId)).output, ['Hello before the crash!']);
            assert.equal((await fx.status(waiting)).runtimeStatus, 'Running');
            await fx.call('POST', `instances/${waiting}/events/go`, 'after');
            assert.deepEqual((await fx.until(waiting, undefined, takeover)).output, { value: 'after' });
            assert.equal((await fx.until(timer, undefined, takeover)).runtimeStatus, 'Completed');

            // No instance was started twice: the list holds each id once.
            const all = (await fx.call('GET', 'instances')).json as Status[];
            for (const id of [finished.instanceId, crashing, waiting, timer]) {
                assert.equal(all.filter((s) => s.instanceId === id).length, 1);
            }
        });

        // The real extension lets a second host join the task hub as another worker (test/e2e/twoHosts.test.ts).
        test('a second host on the same task hub is refused while the first one runs', { skip: durable === 'extension' ? 'the real extension shares the hub between hosts' : false }, async () => {
            await assert.rejects(
                spawnHost({
                    app: fixtureApp('durable-app'),
                    storage: 'azure',
                    env: { TASKHUB_NAME: hub, AzureWebJobsStorage: azurite.connectionString },
                }),
                /Another local host .* is running task hub/
            );
        });
    });
}
