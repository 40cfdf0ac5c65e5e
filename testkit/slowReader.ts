import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * A client that reads a response body slowly: the stream is read in paused mode, one buffered chunk a step
 * (readable.read(), which reads no more from the socket than its highWaterMark), and each step waits for `beforeStep`
 * first, the next turn of the event loop by default. The sender then meets a full socket and has to wait for it to
 * drain (https://nodejs.org/api/stream.html#readablereadsize). Answers how many bytes arrived and their SHA-256.
 */
export interface SlowRead {
    bytes: number;
    sha256: string;
    /** Steps taken: chunks read one at a time. */
    steps: number;
}

export async function readSlowly(stream: Readable, beforeStep: () => Promise<void> = nextTurn): Promise<SlowRead> {
    const hash = createHash('sha256');
    let bytes = 0;
    let steps = 0;
    for (;;) {
        await beforeStep();
        const chunk = await nextChunk(stream);
        if (chunk === null) return { bytes, sha256: hash.digest('hex'), steps };
        hash.update(chunk);
        bytes += chunk.length;
        steps++;
    }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The next buffered chunk, waiting for one; null at the end; a rejection if the stream breaks off first. */
async function nextChunk(stream: Readable): Promise<Buffer | null> {
    for (;;) {
        const chunk: Buffer | null = stream.read();
        if (chunk !== null) return chunk;
        if (stream.readableEnded) return null;
        if (stream.destroyed) throw new Error('The response broke off before its end.');
        await new Promise<void>((resolve, reject) => {
            const settle = (err?: Error) => {
                stream.off('readable', onReadable).off('end', onReadable).off('close', onClose).off('error', settle);
                if (err) reject(err);
                else resolve();
            };
            const onReadable = () => settle();
            // 'close' after 'end' is the normal finish; before it, the body was cut.
            const onClose = () => settle(stream.readableEnded ? undefined : new Error('The response broke off before its end.'));
            stream.on('readable', onReadable).on('end', onReadable).on('close', onClose).on('error', settle);
        });
    }
}
