import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RoutedRequest } from '../../http/frontDoorTypes';
import type { FunctionRoute } from '../../http/routeTable';
import type { InvocationInit, InvocationOutcome } from '../../worker/invoke';

/**
 * The front door reduced to one of its two invocation modes (the stream proxy or the RPC path) on a port of its own, for
 * tests that drive that mode in process, with an invoker the test completes instead of a host and an app.
 */

interface Pending {
    settle: (outcome: InvocationOutcome) => void;
}

/** An invocation completes when the test (as the library) says so. */
export class FakeInvoker {
    readonly pending = new Map<string, Pending>();
    invoke(init: InvocationInit): Promise<InvocationOutcome> {
        const invocationId = init.invocationId ?? randomUUID();
        return new Promise((settle) => this.pending.set(invocationId, { settle }));
    }
    /** Completes the invocation as the library does in stream mode, once its response is written: no output. */
    complete(invocationId: string): void {
        this.pending.get(invocationId)?.settle({ ok: true, invocationId, response: { invocationId, outputData: [] } });
        this.pending.delete(invocationId);
    }
    /** Ends what was never answered (a request the library never received), so nothing is left waiting. */
    failAll(): void {
        for (const [invocationId, { settle }] of this.pending) settle({ ok: false, invocationId, error: { message: 'ended by the test' } });
        this.pending.clear();
    }
}

const metadata = { functionId: 'fn', name: 'fn', bindings: {} };
export const ROUTE = { name: 'fn', triggerName: 'req', fn: { metadata } } as unknown as FunctionRoute;

/** A server on a free loopback port that hands every request, routed to ROUTE, to `serve`. */
export async function frontDoor(serve: (request: RoutedRequest) => Promise<void>): Promise<Server & { stop(): Promise<void> }> {
    const server = createServer((req, res) => {
        res.on('error', () => undefined);
        void serve({
            req,
            res,
            url: new URL(req.url ?? '/', 'http://127.0.0.1'),
            route: ROUTE,
            params: {},
            invocationId: randomUUID(),
            extraInputs: [],
            maxRequestBodyBytes: 1024 * 1024,
        });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return Object.assign(server, {
        stop: () =>
            new Promise<void>((done) => {
                server.close(() => done());
                server.closeAllConnections();
            }),
    });
}

export const urlOf = (server: { address(): unknown }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
