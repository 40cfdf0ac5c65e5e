import type { ServerContext } from '@modelcontextprotocol/server';
import type { Log } from '../deps';
import { progressReporter } from '../era2025/progress';
import type { ToolCall } from '../tools/toolDefinition';

/** What a tool's handler gets of its request (tools/toolDefinition.ts), from SDK v2's handler context. */
export function toolCallOf(ctx: ServerContext, log: Log): ToolCall {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const reportProgress = progressReporter(
        {
            ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
            sendNotification: (notification) => ctx.mcpReq.notify(notification),
        },
        log
    );
    return { signal: ctx.mcpReq.signal, reportProgress };
}
