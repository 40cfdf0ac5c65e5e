import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Progress } from '../../orchestration/contracts';
import type { Log } from '../deps';
import { progressMessage } from '../progressMessage';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A progress notification, in the shape both SDK generations send. */
export interface ProgressNotice {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/**
 * What a tool call needs of its request, whichever protocol era serves it: SDK 1.32's ToolExtra fits,
 * and the 2026-era server builds one from its request context (src/mcp/era2026/callExtra.ts).
 */
export interface CallExtra {
    signal?: AbortSignal;
    _meta?: { progressToken?: string | number };
    sendNotification(notification: ProgressNotice): Promise<void>;
}

/**
 * Sends notifications/progress for the request when the client asked for them (a progressToken in
 * _meta), once per change of blocks_done. Decoration only: a notification that fails to send is
 * logged and forgotten, and nothing depends on one arriving.
 */
export function progressReporter(extra: CallExtra, log: Log): (progress: Progress) => void {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) return () => undefined;
    let lastDone: number | undefined;
    return (progress) => {
        // The protocol wants progress to increase with each notification.
        if (lastDone !== undefined && progress.blocks_done <= lastDone) return;
        lastDone = progress.blocks_done;
        extra
            .sendNotification({
                method: 'notifications/progress',
                params: {
                    progressToken,
                    progress: progress.blocks_done,
                    total: progress.blocks_total,
                    message: progressMessage(progress),
                },
            })
            .catch((error: unknown) => log.warn('Could not send a progress notification', error));
    };
}
