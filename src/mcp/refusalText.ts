import type { JobDefinition } from '../jobs/job';
import type { StartRefusal } from '../workflow/startRefusal';

/**
 * What a client is told when a start tool starts nothing: each refusal of the workflow service as a
 * sentence for the model, saying what happened and what to do next, in the words of the job it is about.
 */

/** The refusal of a start over MAX_ACTIVE_WORKFLOWS. */
function activeCapText(job: JobDefinition, count: number, cap: number): string {
    return (
        `You already have ${count} ${job.noun}${count === 1 ? '' : 's'} running, and at most ${cap} may run at once ` +
        `(MAX_ACTIVE_WORKFLOWS = ${cap}). Nothing was started. Wait for one to finish (poll ${job.tools.get.name}), ` +
        `or stop one with ${job.tools.cancel.name}, then call ${job.tools.start.name} again.`
    );
}

/** The refusal of a start over MAX_ACTIVE_WORKFLOWS_TOTAL (all callers together). */
function totalCapText(job: JobDefinition, cap: number): string {
    return (
        `The server is at its limit of ${cap} workflows running for all callers together ` +
        `(MAX_ACTIVE_WORKFLOWS_TOTAL = ${cap}). Nothing was started. Try again in a few minutes, or stop one of yours with ${job.tools.cancel.name}.`
    );
}

/** The refusal of a start over MAX_STARTS_PER_MINUTE. */
function rateLimitText(job: JobDefinition, limit: number): string {
    return (
        `You started ${limit} workflows in the last minute, the most allowed (MAX_STARTS_PER_MINUTE = ${limit}). ` +
        `Nothing was started. Wait a minute, then call ${job.tools.start.name} again.`
    );
}

export function countUnsupportedText(job: JobDefinition): string {
    return (
        `Could not check how many ${job.noun}s are running: the workflow service refused the query the check needs, ` +
        'so nothing was started. Retrying will not help; tell the operator of this server (the cause is in its logs).'
    );
}

export function countFailedText(job: JobDefinition): string {
    return `Could not check how many of your ${job.noun}s are running, so nothing was started. Try again in a few seconds.`;
}

export const KEY_REUSED =
    'This idempotency_key was already used with other arguments. Use a new key for different work, or the same ' +
    'arguments to get the workflow the key started.';

function startFailedText(job: JobDefinition): string {
    return `Could not start the ${job.noun}: the workflow service did not accept it. Try again in a minute.`;
}

function startUnconfirmedText(job: JobDefinition): string {
    return (
        `The ${job.noun} may have started, but it could not be confirmed. Call ${job.tools.start.name} again with the same ` +
        'idempotency_key and arguments in a few seconds: that is safe and returns the workflow.'
    );
}

function keyBusyText(job: JobDefinition, retryAfterSeconds: number): string {
    return (
        `Another call with this idempotency_key is starting its ${job.noun}, and it has not appeared yet (that call may have ` +
        `stopped). Nothing was started by this call. Call ${job.tools.start.name} again with the same idempotency_key and ` +
        `arguments in ${retryAfterSeconds} seconds at most: that is safe and returns the workflow if it started.`
    );
}

/** The message for a backend failure: no URLs, keys or stack traces from the durable client's error. */
export const BACKEND_UNAVAILABLE =
    'The workflow service did not answer, so the status is unknown. Try again in a few seconds.';

export function refusalText(job: JobDefinition, refusal: StartRefusal): string {
    switch (refusal.kind) {
        case 'over_work':
            return refusal.text;
        case 'at_cap':
            return activeCapText(job, refusal.count, refusal.cap);
        case 'at_total_cap':
            return totalCapText(job, refusal.cap);
        case 'rate_limited':
            return rateLimitText(job, refusal.limit);
        case 'count_failed':
            return countFailedText(job);
        case 'count_unsupported':
            return countUnsupportedText(job);
        case 'key_reused':
            return KEY_REUSED;
        case 'start_failed':
            return startFailedText(job);
        case 'unconfirmed':
            return startUnconfirmedText(job);
        case 'key_busy':
            return keyBusyText(job, refusal.retryAfterSeconds);
        case 'unavailable':
            return BACKEND_UNAVAILABLE;
    }
}
