import type { IncomingMessage } from 'node:http';

/**
 * The request body size limit (Kestrel's MaxRequestBodySize, which the Functions host sets from
 * FUNCTIONS_REQUEST_BODY_SIZE_LIMIT, 100 MB by default). A declared Content-Length is checked before anything
 * runs; a body without one is counted as it arrives.
 */
export class BodyTooLargeError extends Error {
    override name = 'BodyTooLargeError';
    constructor(readonly limit: number) {
        super(`The request body is larger than ${limit} bytes.`);
    }
}

export class ClientGoneError extends Error {
    override name = 'ClientGoneError';
    constructor() {
        super('The client closed the connection before its request was complete.');
    }
}

/** True when the request announces more bytes than the limit allows. */
export function declaresTooLargeBody(req: IncomingMessage, limit: number): boolean {
    const declared = req.headers['content-length'];
    return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit;
}

/** GET and HEAD carry no body to a function, as the library and the host treat them. */
export function methodHasBody(method: string | undefined): boolean {
    const upper = (method ?? 'GET').toUpperCase();
    return upper !== 'GET' && upper !== 'HEAD';
}

/** Reads the whole body, rejecting with BodyTooLargeError as soon as it passes `limit` bytes. */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const onData = (chunk: Buffer) => {
            received += chunk.length;
            if (received > limit) {
                cleanup();
                // Keep draining so the client can finish sending and read the 413.
                req.resume();
                reject(new BodyTooLargeError(limit));
                return;
            }
            chunks.push(chunk);
        };
        const onEnd = () => {
            cleanup();
            resolve(Buffer.concat(chunks, received));
        };
        const onError = (err: Error) => {
            cleanup();
            reject(err);
        };
        // A client that goes away mid-body leaves no 'end'; without this the read would wait forever.
        const onClose = () => {
            if (!req.complete) onError(new ClientGoneError());
        };
        const cleanup = () => {
            req.off('data', onData);
            req.off('end', onEnd);
            req.off('error', onError);
            req.off('close', onClose);
        };
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.on('close', onClose);
    });
}

/** Counts bytes passing through; `add` answers false once the total exceeds the limit. */
export class ByteBudget {
    #received = 0;
    constructor(readonly limit: number) {}
    add(length: number): boolean {
        this.#received += length;
        return this.#received <= this.limit;
    }
}
