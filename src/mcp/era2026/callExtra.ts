import type { ServerContext } from '@modelcontextprotocol/server';
import type { CallExtra } from '../progress';

/** The request as the shared tool handlers see it (src/mcp/progress.ts), from SDK v2's handler context. */
export function callExtraOf(ctx: ServerContext): CallExtra {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    return {
        signal: ctx.mcpReq.signal,
        ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
        sendNotification: (notification) => ctx.mcpReq.notify(notification),
    };
}
