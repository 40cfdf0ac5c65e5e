import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Progress } from '../orchestration/contracts';
import type { Log } from './deps';
import { progressMessage } from './progressMessage';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Sends notifications/progress for the request when the client asked for them (a progressToken in
 * _meta), once per change of blocks_done. Decoration only: a notification that fails to send is
 * logged and forgotten, and nothing depends on one arriving.
 */
export function progressReporter(extra: ToolExtra, log: Log): (progress: Progress) => void {
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
