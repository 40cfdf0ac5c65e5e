import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { LogSink } from '../logger';
import type { RpcTypedData } from '../worker/coreTypes';
import type { Invoker } from '../worker/invoke';
import { sendBodyTooLarge, sendEmpty, sendText } from './hostResponses';
import { InvocationLog } from './invocationLog';
import { lookupOnce } from './lookupOnce';
import { ByteBudget, methodHasBody } from './requestBody';
import type { RouteValues } from './routeTemplate';
import { flattenHeaders, flattenQuery } from './rpcHttp';
import type { RoutedRequest } from './frontDoorTypes';

/**
 * Stream mode (`app.setup({ enableHttpStream: true })`): like the host's DefaultHttpProxyService, the request is
 * forwarded to the library's own HTTP server (the worker's `HttpUri`) while the invocation runs; the library
 * answers that forwarded request, and its response is relayed to the client as it is written.
 */

/** Hop-by-hop headers, which a proxy never forwards (YARP drops these too). */
const HOP_BY_HOP = new Set([
    'connection',
    'keep-alive',
    'proxy-connection',
    'proxy-authenticate',
    'proxy-authorization',
    'te',
    'trailer',
    'transfer-encoding',
    'upgrade',
]);

/**
 * After a successful invocation the library has already ended its response, so its head is in the socket; none
 * read by then means the function returned no response. (The real host would wait 240 s for it and then time out.)
 * The verdict waits for the loop's next poll phase after the timer too: a stall of the event loop (a loaded machine)
 * longer than this runs the timer before the read, and the function's answer was discarded for a 500.
 */
const NO_RESPONSE_GRACE_MS = 2000;

/**
 * A connection of its own for every forwarded request: a kept-alive one could be reused just as the library's server
 * closes it (Node's keepAliveTimeout, 5 s after its last response), and the request was then lost unread: ECONNRESET,
 * a 502, and an invocation left waiting for its request until functionTimeout. Dropping idle sockets after 4 s did not
 * hold once the event loop stalled for a second or two (devhost/test/lostAnswers.test.ts). The request still asks for
 * keep-alive: with `Connection: close` the server shuts the socket after an early answer while the body is still being
 * sent, and the reset lost that answer (devhost/test/earlyAnswer.test.ts).
 */
class OneRequestAgent extends Agent {
    override keepSocketAlive(): boolean {
        return false;
    }
}

/** The request's public URL (Host header) gives x-forwarded-host/-proto. */
export type StreamedRequest = RoutedRequest;

export class StreamProxy {
    readonly #target: URL;
    readonly #agent = new OneRequestAgent({ keepAlive: true });
    readonly #lookup = lookupOnce();

    constructor(
        httpUri: string,
        private readonly invoker: Invoker,
        private readonly sink: LogSink
    ) {
        this.#target = new URL(httpUri);
    }

    async serve(request: StreamedRequest): Promise<void> {
        const { req, res, route, invocationId } = request;
        const log = new InvocationLog(this.sink, route.name, invocationId);
        /** The client has its answer (a relayed head, or one of ours); nothing else may be written. */
        let answered = false;
        /** We gave up on this exchange (413, client gone, failure): errors that follow are expected. */
        let abandoned = false;
        let relaying = false;
        /** The response is complete but the client is still sending its body: discard it. */
        let draining = false;
        let onHead: () => void = () => undefined;
        const headArrived = new Promise<void>((resolve) => (onHead = resolve));

        const proxyReq = httpRequest({
            protocol: this.#target.protocol,
            hostname: this.#target.hostname,
            port: this.#target.port,
            method: req.method,
            path: pathAndQuery(req, request.url),
            headers: forwardedHeaders(req, invocationId, request.url),
            agent: this.#agent,
            lookup: this.#lookup,
        });
        // Headers go out at once, as YARP sends them: the library can pair the request with the invocation
        // before the body (or the lack of one) is known.
        proxyReq.flushHeaders();
        const abandon = () => {
            abandoned = true;
            destroyOnceSent(proxyReq);
        };

        proxyReq.on('response', (proxyRes) => {
            onHead();
            if (abandoned || answered) {
                proxyRes.resume();
                return;
            }
            answered = true;
            relaying = true;
            res.writeHead(proxyRes.statusCode ?? 502, relayedHeaders(proxyRes));
            // An event stream's client must see the head before the first event, so it goes out at the
            // latest at the end of this event-loop turn; what else arrives in the same turn (often the
            // whole body and its end) is corked into the same write, which saves system calls per request.
            res.cork();
            let corked = true;
            const uncork = () => {
                if (!corked) return;
                corked = false;
                if (!res.headersSent) res.flushHeaders();
                res.uncork();
            };
            setImmediate(uncork);
            proxyRes.on('data', (chunk: Buffer) => {
                if (!res.write(chunk)) proxyRes.pause();
            });
            res.on('drain', () => proxyRes.resume());
            proxyRes.on('end', () => {
                res.end();
                // The app answered without reading the whole body (its own 413, say). Forwarding the rest would
                // stall on a reader that is gone, leaving the client's keep-alive connection paused mid-body until
                // a timeout resets it; like Kestrel, read and discard the rest instead (still within the limit).
                if (methodHasBody(req.method) && !req.complete && !abandoned) {
                    draining = true;
                    abandon();
                    req.resume();
                }
            });
            proxyRes.on('close', () => {
                if (!proxyRes.complete) res.destroy();
            });
        });
        proxyReq.on('error', (err) => {
            if (abandoned) return;
            abandoned = true;
            this.sink({
                level: 'error',
                category: 'host',
                functionName: route.name,
                invocationId,
                message: `Forwarding the request to the app's HTTP stream endpoint failed: ${err.message}`,
            });
            if (!answered) {
                answered = true;
                sendText(res, 502, "The function app's HTTP stream endpoint could not be reached.");
            } else {
                res.destroy();
            }
        });
        // A client that goes away cuts the forwarded request too, so the app sees its request end.
        res.on('close', () => {
            if (!res.writableFinished && !abandoned) abandon();
        });

        // Both at once, as the host starts forwarding and then sends the InvocationRequest; the library pairs
        // them by x-ms-invocation-id. The trigger's inputData entry must be present, even though it is empty.
        const invocation = this.invoker.invoke({
            functionId: route.fn.metadata.functionId,
            invocationId,
            inputData: [{ name: route.triggerName, data: {} }, ...request.extraInputs],
            triggerMetadata: triggerMetadata(req, request.url, request.params),
        });

        if (methodHasBody(req.method)) {
            const budget = new ByteBudget(request.maxRequestBodyBytes);
            req.on('data', (chunk: Buffer) => {
                const within = budget.add(chunk.length);
                if (draining) {
                    // Past the limit even the discarding stops: the connection goes, as Kestrel's would.
                    if (!within) res.destroy();
                    return;
                }
                if (abandoned) return;
                if (!within) {
                    abandon();
                    if (answered) {
                        res.destroy();
                    } else {
                        answered = true;
                        sendBodyTooLarge(res);
                    }
                    return;
                }
                if (!proxyReq.write(chunk)) req.pause();
            });
            proxyReq.on('drain', () => req.resume());
            req.on('end', () => {
                if (!abandoned) proxyReq.end();
            });
        } else {
            req.resume();
            proxyReq.end();
        }

        const outcome = await invocation;
        log.executed(outcome.ok);
        if (abandoned) return;
        if (!outcome.ok) {
            // The library will never answer the forwarded request now: close it and answer ourselves, or cut a
            // response that was already on its way.
            abandon();
            if (relaying) {
                if (!res.writableEnded) res.destroy();
            } else if (!answered) {
                answered = true;
                sendEmpty(res, 500);
            }
            return;
        }
        if (answered) return;
        // setImmediate runs after the poll phase that follows the timer's, which reads a head already in the socket.
        const timer = setTimeout(() => setImmediate(onHead), NO_RESPONSE_GRACE_MS);
        await headArrived;
        clearTimeout(timer);
        if (answered || abandoned) return;
        abandon();
        this.sink({
            level: 'warning',
            category: 'host',
            functionName: route.name,
            invocationId,
            message:
                'The function completed without an HTTP response. In HTTP stream mode the Functions host waits for one ' +
                'until its proxy times out; return a response (an empty one is fine).',
        });
        answered = true;
        sendText(res, 500, 'The function completed without an HTTP response.');
    }
}

/**
 * Cuts the forwarded request, but only once its head has left: a request the library never received would
 * leave the invocation waiting for it forever, while a cut one ends the app's request body with an error.
 */
function destroyOnceSent(proxyReq: ClientRequest): void {
    const destroyLater = () => setImmediate(() => proxyReq.destroy());
    const socket = proxyReq.socket;
    if (socket && !socket.connecting) proxyReq.destroy();
    else if (socket) socket.once('connect', destroyLater);
    else proxyReq.once('socket', (assigned) => (assigned.connecting ? assigned.once('connect', destroyLater) : destroyLater()));
}

/** The path and query exactly as the client sent them; an absolute-form target is reduced to its path. */
function pathAndQuery(req: IncomingMessage, url: URL): string {
    const raw = req.url ?? '/';
    return raw.startsWith('/') ? raw : `${url.pathname}${url.search}`;
}

function forwardedHeaders(req: IncomingMessage, invocationId: string, url: URL): OutgoingHttpHeaders {
    const named = new Set(
        String(req.headers.connection ?? '')
            .split(',')
            .map((name) => name.trim().toLowerCase())
    );
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
        // Host goes (the library's server is the destination); Expect was already dealt with here.
        if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name === 'host' || name === 'expect') continue;
        headers[name] = value;
    }
    const client = req.socket.remoteAddress;
    const forwardedFor = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = [forwardedFor, client].filter((v) => v).join(', ');
    headers['x-forwarded-host'] = url.host;
    headers['x-forwarded-proto'] = url.protocol.replace(/:$/, '');
    headers['x-ms-invocation-id'] = invocationId;
    return headers;
}

/**
 * What the host puts in triggerMetadata for an HTTP trigger and the library reads in stream mode: the request
 * headers as JSON, the query (which the library ignores), and each route value as a string.
 */
function triggerMetadata(req: IncomingMessage, url: URL, params: RouteValues): Record<string, RpcTypedData> {
    const metadata: Record<string, RpcTypedData> = {};
    for (const [name, value] of Object.entries(params)) metadata[name] = { string: value };
    metadata.Headers = { json: JSON.stringify(flattenHeaders(req.headers)) };
    metadata.Query = { json: JSON.stringify(flattenQuery(url.searchParams)) };
    return metadata;
}

function relayedHeaders(proxyRes: IncomingMessage): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(proxyRes.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    return headers;
}
