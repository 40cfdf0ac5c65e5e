import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Backend, fixtureApp, skipReason, type SpawnedHost, spawnHost, startTestAzurite, type TestAzurite, uniqueHubName } from '@mcp-mining/testkit';

/**
 * What the MCP app relies on from its Durable backend, asked of each backend of the local host through
 * the management API (the extension's HttpApiHandler, or the TypeScript engine's stand-in for it), the
 * surface the app's durable client calls. The real extension is the oracle: where the TypeScript engine
 * must differ, the difference is written down here as an expectation per backend, and in docs/local-host.md.
 */

interface Status {
    instanceId: string;
    runtimeStatus: string;
    input: unknown;
    output: unknown;
    createdTime: string;
}

const FINAL = ['Completed', 'Failed', 'Terminated'];

class Api {
    constructor(readonly host: SpawnedHost) {}

    fetch(path: string, init: RequestInit = {}): Promise<Response> {
        return fetch(`${this.host.url}/runtime/webhooks/durabletask/${path}`, init);
    }

    start(name: string, id: string, input: unknown): Promise<Response> {
        return this.fetch(`orchestrators/${name}/${id}`, {
            method: 'POST',
            body: JSON.stringify(input),
            headers: { 'content-type': 'application/json' },
        });
    }

    async status(id: string): Promise<{ code: number; body: Status | undefined }> {
        const res = await this.fetch(`instances/${id}`);
        const text = await res.text();
        return { code: res.status, body: res.status === 404 || !text ? undefined : (JSON.parse(text) as Status) };
    }

    /** Polls (every 50 ms) until the instance's status is one of `wanted`; a loaded machine gets 60 s. */
    async until(id: string, wanted: readonly string[], timeoutMs = 60_000): Promise<Status> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const { body } = await this.status(id);
            if (body && wanted.includes(body.runtimeStatus)) return body;
            if (Date.now() > deadline) assert.fail(`${id} is ${body?.runtimeStatus ?? 'unknown'}, wanted ${wanted.join('|')}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
    }

    raise(id: string, event: string, value: unknown): Promise<Response> {
        return this.fetch(`instances/${id}/raiseEvent/${event}`, {
            method: 'POST',
            body: JSON.stringify(value),
            headers: { 'content-type': 'application/json' },
        });
    }
}

for (const backend of ['ts', 'extension'] as const satisfies readonly Backend[]) {
    describe(`Durable backend conformance [${backend}]`, { skip: skipReason(backend) }, () => {
        let azurite: TestAzurite;
        let api: Api;
        const real = backend === 'extension';
        let n = 0;
        const newId = (what: string) => `conf-${what}-${Date.now().toString(36)}-${n++}`;

        before(async () => {
            azurite = await startTestAzurite(real ? 'all' : 'table');
            const host = await spawnHost({
                app: fixtureApp('durable-app'),
                storage: 'azure',
                durable: backend,
                env: { TASKHUB_NAME: uniqueHubName('conformance'), AzureWebJobsStorage: azurite.connectionString },
            });
            api = new Api(host);
        });
        after(async () => {
            await api?.host.stop();
            await azurite?.stop();
        });

        test('status right after a 202 start: the instance is there, with its input; links name the front door', async () => {
            const id = newId('fresh');
            const started = await api.start('Forever', id, { n: 1 });
            assert.equal(started.status, 202);
            // The links point at the host's front door, as the Functions host's webhooks do.
            assert.ok(started.headers.get('location')?.startsWith(`${api.host.url}/runtime/webhooks/durabletask/instances/${id}`));
            const { code, body } = await api.status(id);
            assert.equal(code, 202);
            assert.ok(body && ['Pending', 'Running'].includes(body.runtimeStatus), JSON.stringify(body));
            assert.deepEqual(body.input, { n: 1 });
            await api.fetch(`instances/${id}/terminate`, { method: 'POST' });
        });

        test('output, custom status and failure details', async () => {
            const chain = newId('chain');
            await api.start('Chain', chain, ['a', 'b']);
            const done = await api.until(chain, FINAL);
            assert.equal(done.runtimeStatus, 'Completed');
            assert.deepEqual(done.output, ['Hello a!', 'Hello b!']);
            assert.deepEqual((done as unknown as { customStatus: unknown }).customStatus, { done: 2, total: 2 });

            const failing = newId('fail');
            await api.start('Failing', failing, null);
            const failed = await api.until(failing, FINAL);
            assert.equal(failed.runtimeStatus, 'Failed');
            assert.match(String(failed.output), /uncaught/);
        });

        test('a start on a running id is refused with 409 Conflict', async () => {
            const id = newId('running');
            await api.start('Forever', id, 'first');
            await api.until(id, ['Running']);
            const again = await api.start('Forever', id, 'second');
            assert.equal(again.status, 409);
            assert.deepEqual((await api.status(id)).body?.input, 'first');
            await api.fetch(`instances/${id}/terminate`, { method: 'POST' });
            await api.until(id, FINAL);
        });

        test('a start on a Pending id (right after the first start answered) is refused with 409; the first input runs', async () => {
            const id = newId('pending');
            assert.equal((await api.start('Forever', id, 'first')).status, 202);
            // No wait: the instance is Pending, or Running already; either way a second start must not replace it.
            const again = await api.start('Forever', id, 'second');
            assert.equal(again.status, 409);
            assert.deepEqual((await api.status(id)).body?.input, 'first');
            const running = await api.until(id, ['Running']);
            assert.deepEqual(running.input, 'first');
            await api.fetch(`instances/${id}/terminate`, { method: 'POST' });
            await api.until(id, FINAL);
        });

        test('concurrent starts on one new id with different inputs: one input wins and stays', async () => {
            const id = newId('race');
            const inputs = ['a', 'b', 'c', 'd', 'e'];
            const codes = await Promise.all(inputs.map(async (input) => (await api.start('Forever', id, input)).status));
            const accepted = codes.filter((code) => code === 202).length;
            // The real provider can accept several (it drops the extra start messages later); so does ours.
            assert.ok(accepted >= 1, String(codes));
            assert.ok(codes.every((code) => code === 202 || code === 409), String(codes));
            // Read at once, before it runs: the input that will run is already the one shown (a keyed start's claim,
            // src/workflow/keyClaim.ts, is decided by this first read).
            const first = (await api.status(id)).body;
            const running = await api.until(id, ['Running']);
            assert.equal(first?.input, running.input, `first read ${JSON.stringify(first)}`);
            assert.ok(inputs.includes(String(running.input)), String(running.input));
            // Whatever was answered, the instance that runs keeps one input.
            await api.raise(id, 'go', 'done');
            const done = await api.until(id, FINAL);
            assert.equal(done.input, running.input);
            assert.deepEqual(done.output, { value: 'done' });
        });

        test('concurrent starts on one ended id with different inputs: each is answered 202 or 409, and each read right after shows the input that runs', async () => {
            // What a key's claim is taken again with (src/workflow/keyClaim.ts): every racer reads right after its own answer.
            const id = newId('ended-race');
            await api.start('Chain', id, ['one']);
            await api.until(id, FINAL);
            const inputs = ['a', 'b', 'c', 'd', 'e'];
            const seen = await Promise.all(
                inputs.map(async (input) => {
                    const code = (await api.start('Forever', id, input)).status;
                    return { code, read: (await api.status(id)).body };
                })
            );
            assert.ok(seen.every((s) => s.code === 202 || s.code === 409), JSON.stringify(seen.map((s) => s.code)));
            const running = await api.until(id, ['Running']);
            assert.ok(inputs.includes(String(running.input)), String(running.input));
            // A read that still shows the old execution (ended) says nothing of the new one; every other read shows the winner.
            for (const { read } of seen) if (read !== undefined && !FINAL.includes(read.runtimeStatus)) assert.equal(read.input, running.input, JSON.stringify(read));
            await api.raise(id, 'go', 'done');
            assert.equal((await api.until(id, FINAL)).input, running.input);
        });

        test('a start on an ended id starts a new execution with the new input', async () => {
            const id = newId('ended');
            await api.start('Chain', id, ['one']);
            await api.until(id, FINAL);
            assert.equal((await api.start('Chain', id, ['two'])).status, 202);
            const again = await api.until(id, FINAL, 60_000);
            // The new execution may take a moment to replace the old status.
            const deadline = Date.now() + 30_000;
            let latest = again;
            while (JSON.stringify(latest.output) !== JSON.stringify(['Hello two!']) && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 100));
                latest = (await api.status(id)).body ?? latest;
            }
            assert.deepEqual(latest.output, ['Hello two!']);
        });

        test('terminate: the API accepts at once; the status shows it once the backend applies it', async (t) => {
            const id = newId('terminate');
            await api.start('Forever', id, null);
            await api.until(id, ['Running']);
            const asked = Date.now();
            assert.equal((await api.fetch(`instances/${id}/terminate?reason=stop`, { method: 'POST' })).status, 202);
            const ended = await api.until(id, ['Terminated']);
            assert.equal(ended.output, 'stop');
            // The real extension applies it when its control queue is polled; the TypeScript engine at once.
            t.diagnostic(`terminate visible after ${Date.now() - asked} ms`);
        });

        test('purge: an ended instance is deleted; a running one is refused with 412 and keeps running', async () => {
            const ended = newId('purge-ended');
            await api.start('Chain', ended, ['x']);
            await api.until(ended, FINAL);
            const purged = await api.fetch(`instances/${ended}`, { method: 'DELETE' });
            assert.equal(purged.status, 200);
            assert.deepEqual(await purged.json(), { instancesDeleted: 1 });
            assert.equal((await api.status(ended)).code, 404);

            const running = newId('purge-running');
            await api.start('Forever', running, null);
            await api.until(running, ['Running']);
            assert.equal((await api.fetch(`instances/${running}`, { method: 'DELETE' })).status, 412);
            assert.equal((await api.status(running)).body?.runtimeStatus, 'Running');
            await api.fetch(`instances/${running}/terminate`, { method: 'POST' });
            await api.until(running, FINAL);
        });

        test('listing by instance-id prefix and time window, with paging', async () => {
            const prefix = `conf-list-${Date.now().toString(36)}-`;
            const since = new Date(Date.now() - 2000).toISOString();
            for (let i = 0; i < 5; i++) await api.start('Chain', `${prefix}${i}`, [String(i)]);
            for (let i = 0; i < 5; i++) await api.until(`${prefix}${i}`, FINAL);
            const seen: string[] = [];
            let token: string | null = null;
            let pages = 0;
            do {
                const res: Response = await api.fetch(`instances/?instanceIdPrefix=${prefix}&top=2&createdTimeFrom=${encodeURIComponent(since)}`, {
                    headers: token ? { 'x-ms-continuation-token': token } : {},
                });
                assert.equal(res.status, 200);
                const page = (await res.json()) as Status[];
                assert.ok(page.length <= 2);
                seen.push(...page.map((s) => s.instanceId));
                token = res.headers.get('x-ms-continuation-token');
                pages++;
            } while (token && pages < 10);
            assert.deepEqual(seen.sort(), [0, 1, 2, 3, 4].map((i) => `${prefix}${i}`));
            assert.ok(pages >= 3, `${pages} pages`);
        });
    });
}
