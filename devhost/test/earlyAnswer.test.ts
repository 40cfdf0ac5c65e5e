import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fixtureApp, spawnHost, type SpawnedHost } from '@mcp-mining/testkit';

/**
 * A function in stream mode that answers before reading its request body (an app's own 413, or a handler
 * that ignores the body): the rest of the body must be read and discarded, so the client's keep-alive
 * connection carries the next requests. Forwarding it to the app instead stalled the connection mid-body
 * until a timeout reset it (found by the MCP fuzz test).
 */

/** One keep-alive connection, so every request reuses the socket of the one before. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(url: string, body: Buffer): Promise<{ status: number; socket: unknown }> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', agent, headers: { 'content-length': String(body.length) } });
        req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('error', reject);
        req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
        req.end(body);
    });
}

describe('HTTP front door (stream mode): a function that answers before reading the body', () => {
    let host: SpawnedHost;
    before(async () => {
        host = await spawnHost({ app: fixtureApp('http-app') });
    });
    after(async () => {
        agent.destroy();
        await host?.stop();
    });

    it('keeps the client connection usable: the unread rest of a large body is discarded', async () => {
        const first = await post(`${host.url}/fx/hello`, Buffer.alloc(4 * 1024 * 1024, 'x'));
        assert.equal(first.status, 200);
        for (let i = 0; i < 3; i++) {
            const next = await post(`${host.url}/fx/hello`, Buffer.from('small'));
            assert.equal(next.status, 200);
            assert.equal(next.socket, first.socket, 'the same keep-alive connection');
        }
    });
});
