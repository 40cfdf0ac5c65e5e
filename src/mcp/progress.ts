import type { JobDefinition, JobProgress } from '../jobs/job';
import type { Log } from './deps';

/** A progress notification, in the shape both SDK generations send. */
export interface ProgressNotice {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/**
 * What a tool call needs of its request, whichever protocol era serves it: SDK 1.32's handler extra fits,
 * and the 2026-era server builds one from its request context (src/mcp/era2026/server.ts).
 */
export interface CallExtra {
    signal?: AbortSignal;
    _meta?: { progressToken?: string | number };
    sendNotification(notification: ProgressNotice): Promise<void>;
}

/**
 * Sends notifications/progress for the request when the client asked for them (a progressToken in
 * _meta), once per step of the job's progress. Decoration only: a notification that fails to send is
 * logged and forgotten, and nothing depends on one arriving.
 */
export function progressReporter(job: JobDefinition, extra: CallExtra, log: Log): (progress: JobProgress) => void {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) return () => undefined;
    let lastDone: number | undefined;
    return (progress) => {
        const { done, total } = job.progress.counts(progress);
        // The protocol wants progress to increase with each notification.
        if (lastDone !== undefined && done <= lastDone) return;
        lastDone = done;
        extra
            .sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress: done, total, message: job.progress.message(progress) },
            })
            .catch((error: unknown) => log.warn('Could not send a progress notification', error));
    };
}
