import type { HttpRequest, HttpResponseInit } from '@azure/functions';

/** Conversions between the Functions HTTP types and the web-standard ones the MCP transport speaks. */

/** The Functions request as a web Request, the body left as a stream so the transport can enforce its size limit. */
export function toWebRequest(request: HttpRequest): Request {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null;
    const init: RequestInit & { duplex: 'half' } = {
        method: request.method,
        headers: request.headers,
        // The Functions body is a node:stream/web ReadableStream, the same class as the global one.
        body: hasBody ? (request.body as ReadableStream<Uint8Array>) : undefined,
        // Required by undici for a streamed request body.
        duplex: 'half',
    };
    return new Request(request.url, init);
}

/** The web Response as what a Functions handler returns; a streamed body stays streamed. */
export function toResponseInit(response: Response): HttpResponseInit {
    return { status: response.status, headers: response.headers, body: response.body };
}
