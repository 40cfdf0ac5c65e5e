import type { RpcTypedData } from '../worker/coreTypes';

/**
 * Durable values as the Node worker exchanges them with the host, the same for both backends: what an
 * activity trigger carries in, and how a function's return value reads back.
 */

/**
 * The extension binds activity input as a string for out-of-process workers; the library JSON-parses it.
 * (durable-functions pre-encodes string inputs, so the string "123" stays a string.)
 */
export function activityInput(input: unknown): RpcTypedData {
    if (input === undefined || input === null) return {};
    return { string: typeof input === 'string' ? input : JSON.stringify(input) };
}

/**
 * Decodes a return value as the .NET host does: `json` is parsed, a `string` stays a string (an activity
 * that returns the text '{"a":1}' hands its orchestrator that text, not an object), numbers are numbers.
 */
export function fromTypedData(data: RpcTypedData | null | undefined): unknown {
    if (!data) return undefined;
    if (typeof data.json === 'string') return JSON.parse(data.json);
    if (typeof data.string === 'string') return data.string;
    if (typeof data.int === 'number' || typeof data.int === 'string') return Number(data.int);
    if (typeof data.double === 'number') return data.double;
    if (data.bytes) return Buffer.from(data.bytes).toString('base64');
    return undefined;
}
