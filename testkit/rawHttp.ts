import { request, type IncomingHttpHeaders } from 'node:http';

/**
 * A plain node:http request for what fetch hides or forbids: a chunked body sent piece by piece, several
 * Set-Cookie headers as sent, a server that answers before it has read the whole body.
 */
export interface RawResponse {
    status: number;
    headers: IncomingHttpHeaders;
    body: Buffer;
}

export interface RawRequestOptions {
    method?: string;
    headers?: Record<string, string>;
    /** Written one by one; without a content-length header they go out chunked. */
    chunks?: readonly (Buffer | string)[];
}

export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} });
        let answered = false;
        req.on('response', (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', reject);
        });
        // A server that answers early (413) may close while the body is still going out; the answer is what counts.
        req.on('error', (err) => {
            if (!answered) reject(err);
        });
        for (const chunk of options.chunks ?? []) req.write(chunk);
        req.end();
    });
}
