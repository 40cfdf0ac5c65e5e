import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What SDK 1.32 hands a request handler besides the request. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
