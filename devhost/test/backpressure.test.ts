import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, get, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, it } from 'node:test';
import { serveRpcHttp } from '../http/rpcHttp';
import { StreamProxy } from '../http/streamProxy';
import type { Invoker } from '../worker/invoke';
import { readSlowly, until, within } from '@mcp-mining/testkit';
import { FakeInvoker, frontDoor, urlOf } from './support/frontDoorHarness';

/**
 * The front door writing a response larger than the sockets' buffers to a client that reads slowly, in process, where
 * the host's own buffers can be read: what it holds is bounded, not the body, and the body arrives whole. The same
 * against a running host on the fixture apps, through the real library: largeResponses.test.ts.
 *
 * 16 MiB: loopback sockets took about 4 MiB from a sender while the reader read nothing (Linux autotunes the send
 * buffer up to tcp_wmem's maximum, 4 MiB here), so a relay that read on regardless would hold most of the body.
 */
const SIZE = 16 * 1024 * 1024;
/**
 * What the host may hold of it beyond the kernel's buffers: per stream a highWaterMark (16 KiB on Node 20, 64 KiB from
 * Node 22) and the read that crossed it (up to 64 KiB); about 110 KiB was seen. A relay that ignored backpressure held
 * the body less what the sockets took, 12 MiB.
 */
const HOST_BOUND = 1024 * 1024;
const SLICE = 64 * 1024;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Resolves at the writer's next 'drain', or when the response is gone (then nothing more is written). */
function drainOrClose(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
        const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
        };
        res.on('drain', done).on('close', done);
    });
}

/** A GET whose body the caller reads: nothing of it is consumed until then. */
function open(url: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

describe('front door under backpressure', () => {
    const closers: (() => unknown)[] = [];
    afterEach(async () => {
        for (const close of closers.splice(0)) await close();
    });

    it('relays a streamed response only as the client reads it, holding little of it, and whole', { timeout: 120_000 }, async () => {
        const body = randomFillSync(Buffer.alloc(SIZE));
        const invoker = new FakeInvoker();
        // The library's HTTP server, but one that waits for drain (the real one does not: azure-functions-nodejs-library#294),
        // so that only the relay decides how much of the body is read ahead of the client.
        const library = createServer((req, res) => {
            req.resume();
            void (async () => {
                res.writeHead(200, { 'content-type': 'application/octet-stream' });
                for (let at = 0; at < body.length && !res.destroyed; at += SLICE) {
                    if (!res.write(body.subarray(at, at + SLICE))) await drainOrClose(res);
                }
                res.end();
                invoker.complete(String(req.headers['x-ms-invocation-id']));
            })();
        });
        library.listen(0, '127.0.0.1');
        await once(library, 'listening');

        // The relay's source (the library's response as the host reads it), seen through Node's HTTP diagnostics channel.
        let source: IncomingMessage | undefined;
        const onClientResponse = (message: unknown) => {
            const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
            if (request.getHeader('x-ms-invocation-id') !== undefined) source = response;
        };
        subscribe('http.client.response.finish', onClientResponse);

        let relayed: ServerResponse | undefined;
        let writesWhileFull = 0;
        let mostHeld = 0;
        const proxy = new StreamProxy(`${urlOf(library)}/`, invoker as unknown as Invoker, () => undefined);
        const front = await frontDoor((request) => {
            relayed = request.res;
            const res = request.res;
            const write = res.write.bind(res) as (...args: unknown[]) => boolean;
            res.write = ((...args: unknown[]) => {
                // A response that returned false from write() asks its writer to wait for 'drain'.
                if (res.writableNeedDrain) writesWhileFull++;
                const more = write(...args);
                mostHeld = Math.max(mostHeld, res.writableLength);
                return more;
            }) as typeof res.write;
            return proxy.serve(request);
        });
        closers.push(
            () => unsubscribe('http.client.response.finish', onClientResponse),
            () => invoker.failAll(),
            () => front.stop(),
            () => {
                library.closeAllConnections();
                return new Promise((done) => library.close(done));
            }
        );

        const response = await open(`${urlOf(front)}/large`);
        assert.equal(response.statusCode, 200);
        // The client reads nothing yet: the relay must stop reading its source, well before the body's end.
        const stopped = () => source !== undefined && (source.isPaused() || source.complete);
        await until(stopped, 'the relay paused its source or read it to its end');
        assert.ok(source && relayed);
        assert.equal(source.complete, false, "the relay read the app's whole response while the client read none of it");
        const held = relayed.writableLength + source.readableLength;
        assert.ok(held <= HOST_BOUND, `the host holds ${held} bytes of the response while the client reads nothing`);

        const read = await within(readSlowly(response), 'the whole response, read slowly', 60_000);
        assert.equal(read.bytes, SIZE);
        assert.equal(read.sha256, sha256(body));
        assert.equal(writesWhileFull, 0, 'writes to the response while it asked to wait for drain');
        assert.ok(mostHeld <= HOST_BOUND, `the response held up to ${mostHeld} bytes in the host`);
    });

    it("writes a buffered response once, from the function's own bytes, whole to a slow client", { timeout: 120_000 }, async () => {
        // As the library hands it over: toRpcTypedData(await response.arrayBuffer()), a Uint8Array on that ArrayBuffer.
        const bytes = randomFillSync(new Uint8Array(SIZE));
        const http = { statusCode: '200', headers: { 'content-type': 'application/octet-stream' }, body: { bytes } };
        const invoker = {
            invoke: async (init: { invocationId?: string }) => ({ ok: true, invocationId: init.invocationId ?? '', response: { returnValue: { http } } }),
        };
        const written: Uint8Array[] = [];
        const front = await frontDoor((request) => {
            const res = request.res;
            for (const name of ['write', 'end'] as const) {
                const original = res[name].bind(res) as (...args: unknown[]) => unknown;
                res[name] = ((...args: unknown[]) => {
                    if (args[0] instanceof Uint8Array && args[0].length > 0) written.push(args[0]);
                    return original(...args);
                }) as never;
            }
            return serveRpcHttp({ ...request, invoker: invoker as unknown as Invoker, sink: () => undefined });
        });
        closers.push(() => front.stop());

        const response = await open(`${urlOf(front)}/large`);
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-length'], String(SIZE));
        const read = await within(readSlowly(response), 'the whole response, read slowly', 60_000);
        assert.equal(read.bytes, SIZE);
        assert.equal(read.sha256, sha256(bytes));
        // One write of the function's own memory: the body exists once, in the function's answer, and is not copied.
        assert.equal(written.length, 1, `the body went out in ${written.length} writes`);
        const [chunk] = written;
        const uncopied = chunk !== undefined && chunk.buffer === bytes.buffer && chunk.byteOffset === bytes.byteOffset && chunk.length === SIZE;
        assert.ok(uncopied, 'the body written is a copy');
    });
});
