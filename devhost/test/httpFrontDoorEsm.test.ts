import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fixtureApp, rawRequest, type SpawnedHost, spawnHost } from '@mcp-mining/testkit';

/**
 * testkit/fixtures/esm-app: an app written as a plain `.mjs` entry point, without HTTP streaming, so requests and
 * responses travel inside the invocation (RpcHttp) and the default routePrefix "api" applies.
 */

const MAX_BODY = 1024;

describe('HTTP front door (ESM app, non-stream mode)', () => {
    let host: SpawnedHost;
    const get = (path: string, init?: RequestInit) => fetch(`${host.url}${path}`, init);

    before(async () => {
        host = await spawnHost({ app: fixtureApp('esm-app'), args: ['--max-body-bytes', String(MAX_BODY)] });
    });
    after(() => host?.stop());

    it('loads an ESM entry point, runs its appStart hook and serves it under the default prefix', async () => {
        const res = await get('/api/hello/Ada');
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'hello Ada');
        assert.equal(res.headers.get('x-app-started'), 'true');
        assert.equal(await (await get('/api/hello')).text(), 'hello world');
        assert.equal((await get('/api/hello/Ada1')).status, 404);
    });

    it('passes method, route values, query, headers and binary body in, and status, headers and bytes out', async () => {
        const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(MAX_BODY - 256)]);
        const res = await get('/api/echo/42?tag=a&tag=b', {
            method: 'POST',
            body: bytes,
            headers: { 'content-type': 'application/octet-stream', 'x-test-in': 'ping' },
        });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('x-id'), '42');
        assert.equal(res.headers.get('x-echo-in'), 'ping');
        // The host joins a repeated query parameter into one value.
        assert.equal(res.headers.get('x-query'), 'a,b');
        assert.equal(res.headers.get('x-received-sha256'), createHash('sha256').update(bytes).digest('hex'));
        assert.equal(res.headers.get('content-type'), 'application/octet-stream');
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
        assert.equal((await get('/api/echo/42', { method: 'GET' })).status, 405);
    });

    it('writes cookies the way the Functions host does', async () => {
        const res = await rawRequest(`${host.url}/api/cookies`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.headers['set-cookie'], [
            'session=a%20b; expires=Tue, 01 Jan 2030 00:00:00 GMT; max-age=60; domain=localhost; path=/api; secure; samesite=lax; httponly',
            'plain=v; path=/',
        ]);
    });

    it('answers 200 with an empty body when the function returns nothing, and honours 204', async () => {
        const nothing = await rawRequest(`${host.url}/api/nothing`);
        assert.equal(nothing.status, 200);
        assert.equal(nothing.body.length, 0);
        assert.equal(nothing.headers['content-length'], '0');
        const noContent = await rawRequest(`${host.url}/api/no-content`);
        assert.equal(noContent.status, 204);
        assert.equal(noContent.body.length, 0);
    });

    it('answers 500 without details when a function throws, and logs the failure', async () => {
        const res = await get('/api/boom');
        assert.equal(res.status, 500);
        assert.equal(await res.text(), '');
        const line = await host.waitForOutput(/Executed 'Functions\.esmBoom' \(Failed, Id=[0-9a-f-]{36}, Duration=\d+ms\)/);
        assert.match(line, /\[Functions\.esmBoom [0-9a-f]{8}\]/);
    });

    it('refuses bodies over the limit with 413, declared or counted', async () => {
        const tooBig = randomBytes(MAX_BODY + 1);
        const declared = await rawRequest(`${host.url}/api/echo/1`, {
            method: 'POST',
            headers: { 'content-length': String(tooBig.length) },
            chunks: [tooBig],
        });
        assert.equal(declared.status, 413);
        const counted = await rawRequest(`${host.url}/api/echo/1`, { method: 'POST', chunks: [tooBig.subarray(0, 600), tooBig.subarray(600)] });
        assert.equal(counted.status, 413);
        assert.equal((await get('/api/hello')).status, 200, 'the host carries on');
    });
});
