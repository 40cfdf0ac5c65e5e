import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCErrorResponse, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { withoutRepeatedPrefix } from './errorsSaidOnce';
import { clearError } from './invalidParams';

/**
 * SDK 1.32.2's stateless Streamable HTTP transport for one request (the SDK refuses to reuse a stateless
 * transport), given the request already read and parsed. Every error it sends is said the app's way: once
 * (./errorsSaidOnce.ts), and naming the params that do not fit (./invalidParams.ts). Through `send`, the
 * transport's public method: everything else is the SDK's. Stateless, except that the initialize of a client that
 * declared MCP Apps is given a session id of the form that says so (./uiSession2025.ts).
 */
export class Transport2025 extends WebStandardStreamableHTTPServerTransport {
    constructor(
        private readonly message: unknown,
        maxRequestBodySize: number,
        sessionIdGenerator?: () => string
    ) {
        super({ sessionIdGenerator, maxRequestBodySize });
    }

    override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
        // A structural check: the SDK's isJSONRPCErrorResponse runs a zod parse on every message sent.
        if (!isError(message)) return super.send(message, options);
        const said = clearError(message, this.message);
        if (!isError(said)) return super.send(said, options);
        const text = withoutRepeatedPrefix(said.error.message);
        return super.send(text === said.error.message ? said : { ...said, error: { ...said.error, message: text } }, options);
    }
}

function isError(message: JSONRPCMessage): message is JSONRPCErrorResponse {
    return 'error' in message && 'id' in message;
}
