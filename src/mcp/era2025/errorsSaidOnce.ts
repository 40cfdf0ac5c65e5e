import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { withoutRepeatedPrefix } from './rpcError';

/**
 * A transport that sends JSON-RPC error messages without the "MCP error <code>: " prefix that the SDK's
 * McpError writes into them (rpcError.ts): the SDK's own handlers (tasks/get, resources/read, ...) throw
 * McpError, and a client adds the prefix again. Everything else passes through to the transport it wraps,
 * which the caller keeps serving requests with; the server connects to this one.
 */
export function errorsSaidOnce(inner: Transport): Transport {
    return {
        start: () => inner.start(),
        close: () => inner.close(),
        send: (message: JSONRPCMessage, options?: TransportSendOptions) => inner.send(sayErrorOnce(message), options),
        get sessionId() {
            return inner.sessionId;
        },
        get onclose() {
            return inner.onclose;
        },
        set onclose(handler) {
            inner.onclose = handler;
        },
        get onerror() {
            return inner.onerror;
        },
        set onerror(handler) {
            inner.onerror = handler;
        },
        get onmessage() {
            return inner.onmessage;
        },
        set onmessage(handler) {
            inner.onmessage = handler;
        },
        setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
    };
}

function sayErrorOnce(message: JSONRPCMessage): JSONRPCMessage {
    if (!('error' in message)) return message;
    const text = withoutRepeatedPrefix(message.error.message);
    return text === message.error.message ? message : { ...message, error: { ...message.error, message: text } };
}
