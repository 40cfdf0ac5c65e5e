import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fixtureApp, readSlowly, spawnHost, within, type SpawnedHost } from '@mcp-mining/testkit';

/**
 * A response larger than the sockets' buffers (a view's resources/read is about 400 KiB; 16 MiB here, past the 4 MiB
 * loopback took from a sender while its reader read nothing), read slowly by the client, through a running host on
 * both paths: streamed (HTTP stream mode, the app's own) and buffered in the invocation (RPC). What the host holds of it
 * meanwhile is asserted in process, where its buffers can be read: backpressure.test.ts.
 */
const SIZE = 16 * 1024 * 1024;

const PATHS = [
    { name: 'streamed (HTTP stream mode)', app: 'http-app', large: '/fx/large', other: '/fx/hello' },
    { name: 'buffered in the invocation (RPC)', app: 'esm-app', large: '/api/large', other: '/api/hello/Ada' },
] as const;

/** A GET whose body the caller reads: nothing of it is consumed until then. */
function open(url: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

for (const path of PATHS) {
    describe(`a large response read slowly, ${path.name}`, () => {
        let host: SpawnedHost;
        before(async () => {
            host = await spawnHost({ app: fixtureApp(path.app) });
        });
        after(() => host?.stop());

        it('arrives whole, and the host answers other requests while the client holds it back', { timeout: 120_000 }, async () => {
            const response = await open(`${host.url}${path.large}/${SIZE}`);
            assert.equal(response.statusCode, 200);
            // Nothing of the body is read yet, so the host meets full sockets; its event loop must not wait on them.
            const other = await within(fetch(`${host.url}${path.other}`), 'another request answered', 30_000);
            assert.equal(other.status, 200);
            await other.arrayBuffer();

            const read = await within(readSlowly(response), 'the whole response, read slowly', 60_000);
            assert.equal(read.bytes, SIZE);
            assert.equal(read.sha256, response.headers['x-body-sha256']);
        });
    });
}
