import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fixtureApp, rawRequest, type SpawnedHost, spawnHost } from '@mcp-mining/testkit';

/**
 * Conformance of the HTTP front door on testkit/fixtures/http-app, an app in HTTP stream mode whose host.json sets
 * routePrefix "fx". The ESM fixture covers the non-stream (RPC) path.
 */

const MAX_BODY = 4096;

interface Echo {
    fn: string;
    params: Record<string, string>;
    method: string;
    query: Record<string, string>;
    url: string;
}

describe('HTTP front door (stream mode)', () => {
    let host: SpawnedHost;
    const get = (path: string, init?: RequestInit) => fetch(`${host.url}${path}`, init);
    const echo = async (path: string, init?: RequestInit): Promise<Echo> => {
        const res = await get(path, init);
        assert.equal(res.status, 200, `${init?.method ?? 'GET'} ${path}`);
        return (await res.json()) as Echo;
    };

    before(async () => {
        host = await spawnHost({ app: fixtureApp('http-app'), args: ['--max-body-bytes', String(MAX_BODY)] });
    });
    after(() => host?.stop());

    it('puts routes under host.json routePrefix and defaults a route to the function name', async () => {
        const hello = await echo('/fx/hello?name=Ada');
        assert.equal(hello.fn, 'hello');
        assert.deepEqual(hello.query, { name: 'Ada' });
        assert.equal(hello.url, `${host.url}/fx/hello?name=Ada`);
        assert.equal((await echo('/FX/Hello')).fn, 'hello', 'literals match case-insensitively');
        assert.equal((await get('/api/hello')).status, 404);
        assert.equal((await get('/hello')).status, 404);
    });

    it('matches templates with parameters, defaults, catch-alls and constraints', async () => {
        const cases: [string, string, Record<string, string>][] = [
            ['/fx/users/7/posts', 'users', { id: '7' }],
            ['/fx/users/7/posts/first-post', 'users', { id: '7', slug: 'first-post' }],
            ['/fx/lang', 'lang', { code: 'en' }],
            ['/fx/lang/fr', 'lang', { code: 'fr' }],
            ['/fx/files/a/b/c.txt', 'files', { path: 'a/b/c.txt' }],
            ['/fx/files/a%20b', 'files', { path: 'a b' }],
            ['/fx/range/10', 'range', { n: '10' }],
            ['/fx/guid/3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'guid', { g: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }],
            ['/fx/len/abcd', 'len', { s: 'abcd' }],
            ['/fx/code/XY7', 'code', { c: 'XY7' }],
            ['/fx/doc/readme.md', 'doc', { name: 'readme', ext: 'md' }],
            ['/fx/doc/readme', 'doc', { name: 'readme' }],
        ];
        for (const [path, fn, params] of cases) {
            const body = await echo(path);
            assert.equal(body.fn, fn, path);
            assert.deepEqual(body.params, params, path);
        }
        for (const path of ['/fx/users/seven/posts', '/fx/range/11', '/fx/range/0', '/fx/guid/nope', '/fx/len/a', '/fx/code/abc1', '/fx/items/a1']) {
            assert.equal((await get(path)).status, 404, path);
        }
    });

    it('prefers the most specific of several matching routes, and says when the Functions host would not', async () => {
        assert.equal((await echo('/fx/items/5')).fn, 'itemsById');
        assert.equal((await echo('/fx/items/abc')).fn, 'itemsByName');
        assert.equal((await echo('/fx/items/new')).fn, 'itemsNew');
        const warning = await host.waitForOutput("would run 'itemsByName'");
        assert.match(warning, /warning/);
    });

    it('answers 405 with Allow when only the method is wrong, 404 when nothing matches', async () => {
        assert.equal((await echo('/fx/things/1')).fn, 'thingGet');
        assert.equal((await echo('/fx/things/1', { method: 'DELETE' })).fn, 'thingDelete');
        const put = await get('/fx/things/1', { method: 'PUT' });
        assert.equal(put.status, 405);
        assert.equal(put.headers.get('allow'), 'DELETE, GET');
        assert.equal(await put.text(), '');
        const post = await get('/fx/items/5', { method: 'POST' });
        assert.equal(post.status, 405);
        assert.equal(post.headers.get('allow'), 'GET');
        // HEAD is not implied by GET (the host's method constraint compares names); a trigger can list it.
        assert.equal((await get('/fx/hello', { method: 'HEAD' })).status, 405);
        const head = await get('/fx/head-only', { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(await head.text(), '');
        const missing = await get('/fx/no-such-function');
        assert.equal(missing.status, 404);
        assert.equal(await missing.text(), '');
    });

    it('shows a home page at "/"', async () => {
        const res = await get('/');
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await res.text(), /running/);
    });

    it('passes request headers in and response headers out', async () => {
        const res = await get('/fx/headers', { headers: { 'x-test-in': 'ping', 'user-agent': 'conformance' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-echo-in'), 'ping');
        assert.equal(res.headers.get('x-echo-host'), new URL(host.url).host);
        assert.equal(res.headers.get('content-type'), 'application/vnd.fixture+json');
        assert.match(res.headers.get('x-ms-invocation-id') ?? '', /^[0-9a-f-]{36}$/);
        assert.deepEqual(await res.json(), { userAgent: 'conformance' });
    });

    it('sends cookies with every attribute', async () => {
        const res = await rawRequest(`${host.url}/fx/cookies`);
        const cookies = res.headers['set-cookie'] ?? [];
        assert.equal(cookies.length, 2);
        const session = cookies.find((c) => c.startsWith('session=abc123')) ?? '';
        for (const attribute of ['Max-Age=3600', 'Domain=localhost', 'Path=/fx', 'Expires=Tue, 01 Jan 2030 00:00:00 GMT', 'HttpOnly', 'Secure', 'SameSite=Strict']) {
            assert.ok(session.toLowerCase().includes(attribute.toLowerCase()), `${attribute} in ${session}`);
        }
        assert.ok(cookies.some((c) => c.startsWith('plain=v')));
    });

    it('round-trips binary bodies byte for byte', async () => {
        const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(MAX_BODY - 256)]);
        const res = await get('/fx/binary', { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-received-bytes'), String(bytes.length));
        assert.equal(res.headers.get('x-received-sha256'), createHash('sha256').update(bytes).digest('hex'));
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
        // The same through a chunked request body.
        const chunked = await rawRequest(`${host.url}/fx/binary`, { method: 'PUT', chunks: [bytes.subarray(0, 1000), bytes.subarray(1000)] });
        assert.equal(chunked.status, 200);
        assert.ok(chunked.body.equals(bytes));
    });

    // A host that buffered would never deliver the first event: the timeout turns that hang into a failure.
    it('streams server-sent events as they are written', { timeout: 30_000 }, async () => {
        const id = randomUUID();
        const res = await get(`/fx/sse/${id}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/event-stream');
        assert.equal(res.headers.get('content-encoding'), null);
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        const events: string[] = [];
        let buffer = '';
        const nextEvent = async (): Promise<string | undefined> => {
            for (;;) {
                const end = buffer.indexOf('\n\n');
                if (end >= 0) {
                    const event = buffer.slice(0, end);
                    buffer = buffer.slice(end + 2);
                    return event;
                }
                const { done, value } = await reader.read();
                if (done) return undefined;
                buffer += value;
            }
        };
        // The function holds its second event until released: the first must arrive on its own.
        events.push((await nextEvent()) ?? '');
        assert.deepEqual(events, ['event: first\ndata: one']);
        assert.equal((await get(`/fx/sse/${id}/release`, { method: 'POST' })).status, 202);
        events.push((await nextEvent()) ?? '');
        assert.equal(await nextEvent(), undefined);
        assert.deepEqual(events, ['event: first\ndata: one', 'event: second\ndata: two']);
    });

    it('cuts the forwarded request when the client disconnects, so the app sees its body end', { timeout: 30_000 }, async () => {
        const id = randomUUID();
        const firstEvent = await new Promise<string>((resolve, reject) => {
            const req = request(`${host.url}/fx/upload/${id}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' } });
            req.on('error', () => undefined); // the disconnect below
            req.on('response', (res) => {
                res.once('data', (chunk: Buffer) => {
                    resolve(chunk.toString());
                    req.destroy();
                });
                res.on('error', () => undefined);
            });
            req.once('error', reject);
            req.write('hello');
        });
        assert.equal(firstEvent, 'data: got 5 bytes\n\n');
        const outcome = await get(`/fx/upload/${id}/outcome`);
        assert.equal(await outcome.text(), 'aborted');
        assert.equal((await get('/fx/hello')).status, 200, 'the host carries on');
    });

    it('refuses bodies over the limit with 413, declared or counted', async () => {
        const tooBig = randomBytes(MAX_BODY + 1);
        const declared = await rawRequest(`${host.url}/fx/binary`, {
            method: 'POST',
            headers: { 'content-length': String(tooBig.length) },
            chunks: [tooBig],
        });
        assert.equal(declared.status, 413);
        const counted = await rawRequest(`${host.url}/fx/binary`, { method: 'POST', chunks: [tooBig.subarray(0, 2000), tooBig.subarray(2000)] });
        assert.equal(counted.status, 413);
        const fits = await rawRequest(`${host.url}/fx/binary`, { method: 'POST', chunks: [tooBig.subarray(0, MAX_BODY)] });
        assert.equal(fits.status, 200);
    });

    it('runs appStart, preInvocation and postInvocation hooks', async () => {
        const res = await get('/fx/hooks');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-post-invocation'), 'ran');
        assert.deepEqual(await res.json(), { appStartRan: true, preInvocationRan: true });
    });

    it('tags logs with the function name and invocation id', async () => {
        const marker = randomUUID();
        const { invocationId } = (await (await get(`/fx/logger?marker=${marker}`)).json()) as { invocationId: string };
        const userLine = await host.waitForOutput(`fixture log line ${marker}`);
        assert.ok(userLine.includes(`Functions.logger ${invocationId.slice(0, 8)}`), userLine);
        await host.waitForOutput(`Executing 'Functions.logger' (Reason='This function was programmatically called via the host APIs.', Id=${invocationId})`);
        const executed = await host.waitForOutput(`Executed 'Functions.logger' (Succeeded, Id=${invocationId}`);
        assert.match(executed, /Duration=\d+ms\)/);
    });

    it('answers 500 without details when a function throws', async () => {
        const res = await get('/fx/boom');
        assert.equal(res.status, 500);
        assert.equal(await res.text(), '');
        await host.waitForOutput(/Executed 'Functions\.boom' \(Failed, Id=/);
    });

    it('answers 500 when a function in stream mode returns no response', async () => {
        const res = await get('/fx/silent');
        assert.equal(res.status, 500);
        assert.doesNotMatch(await res.text(), /\bat\b.*\.js/);
        await host.waitForOutput('completed without an HTTP response');
    });

    it('does not ask for keys when none is configured', async () => {
        assert.equal((await get('/fx/secured')).status, 200);
        assert.equal((await get('/fx/securedAdmin')).status, 200);
    });
});

describe('HTTP front door with a function key', () => {
    const KEY = 'conformance-key';
    let host: SpawnedHost;
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${host.url}${path}`, { headers });

    before(async () => {
        host = await spawnHost({ app: fixtureApp('http-app'), functionKey: KEY });
    });
    after(() => host?.stop());

    it('answers 401 with no body without the key', async () => {
        for (const path of ['/fx/secured', '/fx/securedAdmin', `/fx/secured?code=wrong`]) {
            const res = await get(path);
            assert.equal(res.status, 401, path);
            assert.equal(await res.text(), '');
        }
    });

    it('accepts the key in x-functions-key or ?code=, the header first', async () => {
        assert.equal((await get('/fx/secured', { 'x-functions-key': KEY })).status, 200);
        assert.equal((await get(`/fx/secured?code=${KEY}`)).status, 200);
        assert.equal((await get(`/fx/securedAdmin?code=${KEY}`)).status, 200);
        assert.equal((await get(`/fx/secured?code=${KEY}`, { 'x-functions-key': 'wrong' })).status, 401);
    });

    it('never asks anonymous functions for one', async () => {
        assert.equal((await get('/fx/hello')).status, 200);
    });
});
