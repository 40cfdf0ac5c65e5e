import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { keepAliveAsKestrel } from '../http/keepAlive';
import { repoRoot } from '@mcp-mining/testkit';

/**
 * The keep-alive of the host's HTTP servers (devhost/http/keepAlive.ts) as docs/local-host.md states it, without waiting
 * the 130 s. That the running host's front door still carries a request on a connection idle past Node's own 5 s is held
 * in lostAnswers.test.ts ("still carries a request after 7 s idle").
 */

/** The figure the docs give: "the front door keeps an idle client connection 130 s". */
function documentedIdleSeconds(): number {
    const text = readFileSync(join(repoRoot, 'docs', 'local-host.md'), 'utf8');
    const figure = /keeps an\s+idle client connection (\d+) s/.exec(text)?.[1];
    assert.ok(figure, 'docs/local-host.md no longer says how long the front door keeps an idle connection');
    return Number(figure);
}

describe("the host's keep-alive", () => {
    const servers: Server[] = [];
    afterEach(async () => {
        for (const server of servers.splice(0)) {
            server.closeAllConnections();
            await new Promise((done) => server.close(done));
        }
    });

    /** A server as the host makes its own (createServer, then keepAliveAsKestrel), counting the connections it accepts. */
    async function start(options: ServerOptions, onIdle: (socket: Socket) => void = () => undefined) {
        const server = createServer(options, (req, res) => {
            // Node arms the idle timer of a kept-alive connection as the response finishes (its listener runs before this one).
            res.on('finish', () => onIdle(req.socket));
            res.end('ok');
        });
        keepAliveAsKestrel(server);
        servers.push(server);
        let connections = 0;
        server.on('connection', () => connections++);
        server.listen(0, '127.0.0.1');
        await once(server, 'listening');
        return { port: (server.address() as AddressInfo).port, connections: () => connections };
    }

    /** One request on `agent`; whether it went out on a socket the agent reused. */
    async function call(port: number, agent: Agent): Promise<{ status: number; reused: boolean; headers: IncomingHttpHeaders }> {
        const req = request({ host: '127.0.0.1', port, path: '/', agent });
        req.end();
        const [res] = (await once(req, 'response')) as [IncomingMessage];
        res.resume();
        await once(res, 'end');
        return { status: res.statusCode ?? 0, reused: req.reusedSocket, headers: res.headers };
    }

    it('gives an idle kept-alive connection the time docs/local-host.md says, and no Keep-Alive hint', async () => {
        const idleTimeouts: number[] = [];
        const { port } = await start({}, (socket) => idleTimeouts.push(socket.timeout ?? 0));
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
            const { status, headers } = await call(port, agent);
            assert.equal(status, 200);
            assert.equal(headers.connection, 'keep-alive');
            assert.equal(headers['keep-alive'], undefined);
        } finally {
            agent.destroy();
        }
        // Node arms the limit plus a grace of its own against a client racing the close: a second (hard-coded in Node 20's
        // lib/_http_server.js, server.keepAliveTimeoutBuffer from Node 24.6), so 131 s.
        const grace = (createServer() as Server & { keepAliveTimeoutBuffer?: number }).keepAliveTimeoutBuffer ?? 1_000;
        assert.equal(idleTimeouts.length, 1);
        const armed = idleTimeouts[0] ?? 0;
        assert.ok([0, grace].includes(armed - documentedIdleSeconds() * 1000), `an idle connection is given ${armed} ms`);
    });

    it('keeps an idle connection past headersTimeout and requestTimeout, which time only a request under way', async () => {
        // Node's defaults are 60 s and 300 s, the first below the 130 s idle limit; scaled down here to a second or so,
        // checked every 100 ms (https://nodejs.org/api/http.html#serverheaderstimeout).
        const { port, connections } = await start({ headersTimeout: 1_000, requestTimeout: 1_500, connectionsCheckingInterval: 100 });
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
            const first = await call(port, agent);
            assert.equal(first.status, 200);
            assert.equal(first.reused, false);
            await new Promise((resolve) => setTimeout(resolve, 2_500));
            const second = await call(port, agent);
            assert.equal(second.status, 200);
            assert.equal(second.reused, true, 'the second request went out on a new connection');
            assert.equal(connections(), 1);
        } finally {
            agent.destroy();
        }
    });
});
