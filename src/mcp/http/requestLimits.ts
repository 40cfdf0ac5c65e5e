/**
 * Limits the MCP endpoint applies to a request body before the MCP transport parses it, whatever host
 * runs the app (the Functions host accepts up to 100 MB by default; an MCP message here is a few hundred
 * bytes). Pure functions over web-standard types, so they are unit-testable without a host.
 */

/** Largest request body accepted, in bytes: far above any valid message, far below the host's 100 MB. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/**
 * Deepest JSON nesting accepted. A valid message nests about 5 levels; the bound keeps recursive code
 * further down (schema validation, JSON.stringify of an echoed value) away from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

export type BodyRead = { kind: 'ok'; text: string } | { kind: 'tooLarge' };

/**
 * What is left of a body over the limit is read and discarded, as Node's HTTP server does with a body
 * nobody read (https://github.com/nodejs/node/blob/v20.x/lib/_http_server.js, `req._dump()`), so the
 * connection it came on stays usable and the 413 is answered at once; cancelling instead would cut the
 * host's connection to the app mid-request. Bounded: past these, the stream is cancelled.
 */
const DRAIN_MAX_BYTES = 128 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

/**
 * Reads the body as UTF-8 text, stopping as soon as more than `maxBytes` have arrived (the rest is
 * drained in the background). A declared Content-Length over the limit is refused without reading anything.
 */
export async function readBodyWithin(
    request: { headers: Headers; body: ReadableStream<Uint8Array> | null },
    maxBytes: number = MAX_REQUEST_BODY_BYTES
): Promise<BodyRead> {
    const declared = request.headers.get('content-length');
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) return { kind: 'tooLarge' };
    if (request.body === null) return { kind: 'ok', text: '' };
    const reader = request.body.getReader();
    const decoder = new TextDecoder();
    let received = 0;
    let text = '';
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            received += value.byteLength;
            if (received > maxBytes) {
                void drain(reader);
                return { kind: 'tooLarge' };
            }
            text += decoder.decode(value, { stream: true });
        }
    } catch (error) {
        reader.releaseLock();
        throw error;
    }
    reader.releaseLock();
    return { kind: 'ok', text: text + decoder.decode() };
}

/** Reads and discards the rest of a body, within DRAIN_MAX_BYTES and DRAIN_MAX_MS; then cancels it. Never rejects. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const deadline = Date.now() + DRAIN_MAX_MS;
    let drained = 0;
    try {
        while (drained <= DRAIN_MAX_BYTES && Date.now() < deadline) {
            const { done, value } = await reader.read();
            if (done) return;
            drained += value.byteLength;
        }
        // Not awaited: a cancel settles only once the source has stopped (a tee's branch only when both have).
        reader.cancel().catch(() => undefined);
    } catch {
        // The client went away: nothing left to drain.
    }
}

/**
 * True when the JSON text nests arrays/objects deeper than `maxDepth`. A linear scan that skips string
 * contents (with their escapes); it does not validate the JSON, JSON.parse does that afterwards.
 */
export function nestsDeeperThan(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
            if (c === 0x5c /* \ */) i++;
            else if (c === 0x22 /* " */) inString = false;
            continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
            if (++depth > maxDepth) return true;
        } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
    }
    return false;
}
