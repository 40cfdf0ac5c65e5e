import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { describeOnEachBackend, fixtureApp, rawRequest, type RawResponse, type SpawnedHost, spawnHost, startTestAzurite, type TestAzurite, uniqueHubName, until } from '@mcp-mining/testkit';

/**
 * The local host's own routes (the Durable management webhooks, /admin, the home page) against browsers'
 * pages: a DNS-rebound name (a foreign Host header) and a cross-origin "simple" POST (text/plain, no
 * preflight) get 403 before anything runs, on both Durable backends (the extension's webhooks are relayed
 * through the front door). Clients without Origin, and loopback pages, are served as before.
 */

const WEBHOOKS = '/runtime/webhooks/durabletask';

describeOnEachBackend('the host\'s own routes refuse foreign Host and Origin', (backend) => {
    let azurite: TestAzurite | undefined;
    let host: SpawnedHost;
    let base: string;
    let port: number;
    const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> =>
        rawRequest(`${base}${path}`, {
            method: init.method ?? 'GET',
            headers: init.headers ?? {},
            ...(init.body !== undefined ? { chunks: [init.body] } : {}),
        });
    const runtimeStatus = async (id: string): Promise<string> => {
        const res = await send(`/api/instances/${id}`);
        assert.equal(res.status, 200, res.body.toString());
        return (JSON.parse(res.body.toString()) as { runtimeStatus: string }).runtimeStatus;
    };
    const startForever = async (): Promise<string> => {
        const res = await send('/api/orchestrators/Forever', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"secret-input"' });
        assert.equal(res.status, 202, res.body.toString());
        const id = (JSON.parse(res.body.toString()) as { id: string }).id;
        await until(async () => (await runtimeStatus(id)) === 'Running', `${id} running`, 60_000, 50);
        return id;
    };

    before(async () => {
        azurite = backend === 'extension' ? await startTestAzurite('all') : undefined;
        host = await spawnHost({
            app: fixtureApp('durable-app'),
            storage: backend === 'extension' ? 'azure' : 'memory',
            durable: backend,
            env: { TASKHUB_NAME: uniqueHubName('guard'), AzureWebJobsStorage: azurite?.connectionString ?? undefined },
        });
        base = host.url;
        port = host.port;
    });
    after(async () => {
        await host?.stop();
        await azurite?.stop();
    });

    test('a foreign Host reads nothing from the management API; a loopback Host reads the instances', async () => {
        const id = await startForever();
        for (const foreign of [`attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `0.0.0.0:${port}`, `10.0.0.2:${port}`]) {
            const refused = await send(`${WEBHOOKS}/instances`, { headers: { host: foreign } });
            assert.equal(refused.status, 403, foreign);
            assert.match(refused.body.toString(), /loopback Host/);
            assert.ok(!refused.body.toString().includes(id) && !refused.body.toString().includes('secret-input'), foreign);
            assert.equal((await send(`${WEBHOOKS}/instances/${id}`, { headers: { host: foreign } })).status, 403, foreign);
        }
        for (const loopback of [`127.0.0.1:${port}`, `localhost:${port}`]) {
            const served = await send(`${WEBHOOKS}/instances`, { headers: { host: loopback } });
            assert.equal(served.status, 200, loopback);
            assert.ok(served.body.toString().includes(id), `${loopback} lists ${id}`);
        }
        await send(`${WEBHOOKS}/instances/${id}/terminate?reason=cleanup`, { method: 'POST' });
    });

    test('a cross-origin simple POST does not terminate a workflow; a client without Origin or a loopback page does', async () => {
        const id = await startForever();
        const terminate = `${WEBHOOKS}/instances/${id}/terminate?reason=attack`;
        const pages: Record<string, string>[] = [
            { origin: 'https://attacker.example' },
            { origin: 'null' },
            { origin: `http://127.0.0.1:${port}/page` },
            { origin: `http://127.0.0.1:${port}, https://attacker.example` },
            { 'sec-fetch-site': 'cross-site' },
            { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
        ];
        for (const page of pages) {
            const refused = await send(terminate, { method: 'POST', headers: { 'content-type': 'text/plain', ...page }, body: 'x' });
            assert.equal(refused.status, 403, JSON.stringify(page));
        }
        // The extension shows a terminate when it next reads the control queue (up to 2 s here): give it longer.
        await new Promise((resolve) => setTimeout(resolve, backend === 'extension' ? 4000 : 300));
        assert.equal(await runtimeStatus(id), 'Running');

        const served = await send(terminate, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://localhost:6274' }, body: 'x' });
        assert.equal(served.status, 202, served.body.toString());
        await until(async () => (await runtimeStatus(id)) === 'Terminated', `${id} terminated`, 60_000, 50);
    });

    test('the host status and home page follow the same rule; the app\'s own routes are the app\'s to guard', async () => {
        assert.equal((await send('/admin/host/status')).status, 200);
        assert.equal((await send('/admin/host/status', { headers: { host: `attacker.example:${port}` } })).status, 403);
        assert.equal((await send('/', { headers: { origin: 'https://attacker.example' } })).status, 403);
        assert.equal((await send('/')).status, 200);
        // As on Azure, where the Functions host does not check Origin or Host for function routes: the app
        // decides (this project's MCP endpoint does, test/e2e/attackerCaps.test.ts).
        const id = await startForever();
        assert.equal((await send(`/api/instances/${id}`, { headers: { host: `attacker.example:${port}` } })).status, 200);
        await send(`${WEBHOOKS}/instances/${id}/terminate?reason=cleanup`, { method: 'POST' });
    });
});

/** A non-loopback IPv4 address of this machine, if it has one. */
function lanAddress(): string | undefined {
    for (const addresses of Object.values(networkInterfaces())) {
        for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
    }
    return undefined;
}

describe('the management routes on a non-loopback interface', { skip: lanAddress() ? false : 'this machine has no non-loopback IPv4 address' }, () => {
    const hosts: SpawnedHost[] = [];
    after(async () => {
        for (const host of hosts) await host.stop();
    });

    test('need the key: without --function-key they are refused there, and still served on loopback', async () => {
        const keyless = await spawnHost({ app: fixtureApp('durable-app'), args: ['--host', '0.0.0.0'], env: { TASKHUB_NAME: uniqueHubName('lan') } });
        hosts.push(keyless);
        const lan = `http://${lanAddress()}:${keyless.port}`;
        const refused = await rawRequest(`${lan}${WEBHOOKS}/instances`);
        assert.equal(refused.status, 403);
        assert.match(refused.body.toString(), /--function-key/);
        // Through the LAN address any Host may arrive; the app's routes and the host status are still served.
        assert.equal((await rawRequest(`${lan}/admin/host/status`, { headers: { host: `attacker.example:${keyless.port}` } })).status, 200);
        assert.equal((await rawRequest(`http://127.0.0.1:${keyless.port}${WEBHOOKS}/instances`)).status, 200);
        // 127.0.0.1 of a listener on every interface is where a rebound name leads: the Host rule holds there.
        const rebound = await rawRequest(`http://127.0.0.1:${keyless.port}${WEBHOOKS}/instances`, { headers: { host: `attacker.example:${keyless.port}` } });
        assert.equal(rebound.status, 403);

        const keyed = await spawnHost({
            app: fixtureApp('durable-app'),
            args: ['--host', '0.0.0.0'],
            functionKey: 'the-key',
            env: { TASKHUB_NAME: uniqueHubName('lan') },
        });
        hosts.push(keyed);
        const keyedLan = `http://${lanAddress()}:${keyed.port}${WEBHOOKS}/instances`;
        assert.equal((await rawRequest(keyedLan)).status, 401);
        assert.equal((await rawRequest(keyedLan, { headers: { 'x-functions-key': 'the-key' } })).status, 200);
        // A page of another origin is refused even with the key in the URL it was handed.
        assert.equal((await rawRequest(`${keyedLan}?code=the-key`, { headers: { origin: 'https://attacker.example' } })).status, 403);
    });
});
