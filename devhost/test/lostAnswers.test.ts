import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { StreamProxy } from '../http/streamProxy';
import type { LogRecord } from '../logger';
import type { Invoker } from '../worker/invoke';
import { fixtureApp, spawnHost, type SpawnedHost } from '@mcp-mining/testkit';
import { FakeInvoker, frontDoor, urlOf } from './support/frontDoorHarness';

/**
 * Requests and answers the local host lost between a client and the app, each reproduced deterministically.
 *
 * - The front door closed a kept-alive client connection after Node's 5 s, hinting `Keep-Alive: timeout=5`, which
 *   undici turns into an idle limit of 4 s: a stall of a second or more in either process, and a client's request
 *   went out on a connection the host had just closed ("fetch failed", "other side closed", seen in the two-host
 *   runs). Here a client reuses its connection after 7 s idle (Node 20 closed it after about 6), as such a client then does.
 *
 * The stream proxy (devhost/http/streamProxy.ts), with a stand-in for the library's HTTP server (the worker's HttpUri)
 * and an invoker that completes each invocation as the library does, once its response is written:
 *
 * - A stall of the event loop (a loaded machine: two hosts, mining, orchestrator replays) right after the library
 *   ended its response ran the proxy's 2-s "no response" timer before the poll phase that reads the response: the
 *   function's answer was replaced by a 500.
 * - A kept-alive socket to the library's server, reused as the server closed it (its keepAliveTimeout, 5 s after its
 *   last response; the proxy's 4-s idle limit held only while the loop kept time): the request was lost unread, the
 *   client got a 502 and the invocation waited for its request until functionTimeout. With random stalls injected
 *   into the host, 4 of 30 and 2 of 50 MCP calls went so.
 */

/** Blocks this thread's event loop, as a busy machine or a long synchronous replay does. */
function stallLoop(ms: number): void {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('stream proxy: an answer the library produced reaches the client', () => {
    const closers: (() => unknown)[] = [];
    const logs: LogRecord[] = [];
    let invoker: FakeInvoker;
    let proxyFor: (libraryUrl: string) => StreamProxy;
    afterEach(async () => {
        invoker?.failAll();
        for (const close of closers.splice(0)) await close();
    });

    const setup = () => {
        invoker = new FakeInvoker();
        logs.length = 0;
        proxyFor = (libraryUrl) => new StreamProxy(libraryUrl, invoker as unknown as Invoker, (record) => logs.push(record));
    };

    it('relays the response when the event loop stalls past the no-response grace right after the library ended it', async () => {
        setup();
        // The library: answers, then (as other work on a loaded host) the loop stalls 2.5 s before anything reads it.
        const library = createServer((req: IncomingMessage, res: ServerResponse) => {
            req.resume();
            res.writeHead(200, { 'content-type': 'text/plain' }).end('the answer');
            setImmediate(() => stallLoop(2_500));
            invoker.complete(String(req.headers['x-ms-invocation-id']));
        });
        library.listen(0, '127.0.0.1');
        await once(library, 'listening');
        const proxy = proxyFor(`${urlOf(library)}/`);
        const front = await frontDoor((request) => proxy.serve(request));
        closers.push(() => front.stop(), () => new Promise((done) => library.close(done)));

        const res = await fetch(`${urlOf(front)}/api/fn`);
        assert.equal(res.status, 200, await res.clone().text());
        assert.equal(await res.text(), 'the answer');
        assert.equal(logs.filter((record) => /without an HTTP response/.test(record.message)).length, 0);
    });

    it('sends no request on a kept-alive socket that the library may be closing', async () => {
        setup();
        // The library, at the moment its keepAliveTimeout closes an idle socket: it answers the first request on a
        // connection and resets the connection on the next one, unread, as a close that crosses a reuse does.
        const sockets = new Set<Socket>();
        const library = createTcpServer((socket) => {
            sockets.add(socket);
            let answered = false;
            let head = '';
            socket.on('error', () => undefined);
            socket.on('data', (chunk: Buffer) => {
                if (answered) return void socket.resetAndDestroy();
                head += chunk.toString('latin1');
                const end = head.indexOf('\r\n\r\n');
                if (end < 0) return;
                answered = true;
                const id = /^x-ms-invocation-id: *(\S+)/im.exec(head.slice(0, end))?.[1] ?? '';
                socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 10\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\nthe answer');
                invoker.complete(id);
            });
        });
        library.listen(0, '127.0.0.1');
        await once(library, 'listening');
        const proxy = proxyFor(`${urlOf(library)}/`);
        const front = await frontDoor((request) => proxy.serve(request));
        closers.push(
            () => front.stop(),
            () => {
                for (const socket of sockets) socket.destroy();
                return new Promise((done) => library.close(done));
            }
        );

        for (let call = 1; call <= 3; call++) {
            const res = await fetch(`${urlOf(front)}/api/fn`);
            assert.equal(res.status, 200, `call ${call}: ${await res.clone().text()}`);
            assert.equal(await res.text(), 'the answer');
        }
        assert.equal(invoker.pending.size, 0, 'every invocation got its request');
    });
});

/** One HTTP/1.1 exchange on an open socket: the response's head and body, or what the socket did instead. */
function exchange(socket: Socket, path: string): Promise<string> {
    return new Promise((resolve) => {
        let text = '';
        const done = (result: string) => {
            socket.off('data', onData).off('close', onClose).off('end', onClose);
            resolve(result);
        };
        const onData = (chunk: Buffer) => {
            text += chunk.toString('latin1');
            const head = text.indexOf('\r\n\r\n');
            if (head < 0) return;
            const length = /^content-length: *(\d+)/im.exec(text)?.[1];
            if (length !== undefined ? text.length - head - 4 >= Number(length) : text.endsWith('\r\n0\r\n\r\n')) done(text);
        };
        const onClose = () => done(`closed by the host after ${JSON.stringify(text)}`);
        // Closed while idle: the request would go out on a connection the host has closed.
        if (socket.readableEnded || socket.destroyed) return onClose();
        socket.on('data', onData).once('close', onClose).once('end', onClose);
        socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    });
}

describe('front door: a kept-alive client connection', () => {
    let host: SpawnedHost;
    before(async () => {
        host = await spawnHost({ app: fixtureApp('http-app') });
    });
    after(async () => {
        await host?.stop();
    });

    it('still carries a request after 7 s idle, and the host hints no shorter limit', async () => {
        const socket = connect(host.port, '127.0.0.1');
        socket.on('error', () => undefined);
        await once(socket, 'connect');
        try {
            const first = await exchange(socket, '/fx/hello');
            assert.match(first, /^HTTP\/1\.1 200/);
            // Kestrel sends no hint: a client keeps its own idle limit, far below the host's.
            assert.doesNotMatch(first, /^keep-alive:/im);
            assert.doesNotMatch(first, /^connection: *close/im);
            await new Promise((resolve) => setTimeout(resolve, 7_000));
            const second = await exchange(socket, '/fx/hello');
            assert.match(second, /^HTTP\/1\.1 200/, second);
        } finally {
            socket.destroy();
        }
    });
});
