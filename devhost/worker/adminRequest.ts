import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the local host's test-only admin routes (faultRoute.ts, holdRoute.ts) share: loopback only, and never from a
 * browser page (a request with an Origin), so no web page can drive them; a POST's body is JSON of at most 4 KB.
 */

export type Answer = (status: number, body: unknown) => void;

export function answerer(res: ServerResponse): Answer {
    return (status, body) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** False (answered 404) for a request from off the machine or from a browser page. */
export function fromLocalTool(req: IncomingMessage, answer: Answer): boolean {
    const address = req.socket.remoteAddress ?? '';
    const loopback = address === '::1' || /^(::ffff:)?127\./.test(address);
    if (loopback && req.headers.origin === undefined) return true;
    answer(404, { error: 'Not found.' });
    return false;
}

/** A POST's JSON body, or undefined (answered: 405 not a JSON POST, 413 over 4 KB, 400 not JSON). */
export async function jsonBody(req: IncomingMessage, answer: Answer, usage: string): Promise<unknown> {
    if (req.method !== 'POST' || !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        answer(405, { error: usage });
        return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > 4096) {
            answer(413, { error: 'The body is limited to 4 KB.' });
            return undefined;
        }
        chunks.push(chunk as Buffer);
    }
    try {
        return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
        answer(400, { error: usage });
        return undefined;
    }
}
