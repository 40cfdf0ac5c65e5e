import type { ServerContext } from '@modelcontextprotocol/server';
import type { Log } from '../deps';
import { progressReporter } from '../progress';
import type { ToolCall } from '../tools/toolDefinition';
import type { JobDefinition } from '../../jobs/job';

/** What a tool's handler gets of its request (tools/toolDefinition.ts), from SDK v2's handler context. */
export function toolCallOf(job: JobDefinition, ctx: ServerContext, log: Log): ToolCall {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const reportProgress = progressReporter(
        job,
        {
            ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
            sendNotification: (notification) => ctx.mcpReq.notify(notification),
        },
        log
    );
    return { signal: ctx.mcpReq.signal, reportProgress };
}
