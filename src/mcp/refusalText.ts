import type { StartRefusal } from '../workflow/startRefusal';

/**
 * What a client is told when start_mining starts nothing: each refusal of the workflow service as a
 * sentence for the model, saying what happened and what to do next.
 */

function powerOfTwo(value: number): string {
    const exponent = Math.log2(value);
    return Number.isInteger(exponent) ? `2^${exponent} = ${value}` : String(value);
}

function overWork(blocks: number, difficulty: number, expected: number, maxWork: number): string {
    // The most blocks at this difficulty, or else the highest difficulty for one block, that fit.
    const blocksThatFit = Math.floor(maxWork / 2 ** difficulty);
    const hint =
        blocksThatFit >= 1
            ? `use at most ${blocksThatFit} block${blocksThatFit === 1 ? '' : 's'} at difficulty ${difficulty}`
            : `use difficulty ${Math.floor(Math.log2(maxWork))} or lower`;
    return (
        `This run would take ${expected} expected attempts (blocks × 2^difficulty = ${blocks} × 2^${difficulty}), ` +
        `more than one call may start (MAX_WORK = ${powerOfTwo(maxWork)}). Lower the work: ${hint}.`
    );
}

/** The refusal of a start over MAX_ACTIVE_WORKFLOWS. */
export function activeCapText(count: number, cap: number): string {
    return (
        `You already have ${count} mining workflow${count === 1 ? '' : 's'} running, and at most ${cap} may run at once ` +
        `(MAX_ACTIVE_WORKFLOWS = ${cap}). Nothing was started. Wait for one to finish (poll get_mining_result), ` +
        'or stop one with cancel_mining, then call start_mining again.'
    );
}

/** The refusal of a start over MAX_ACTIVE_WORKFLOWS_TOTAL (all callers together). */
export function totalCapText(cap: number): string {
    return (
        `The server is at its limit of ${cap} mining workflows running for all callers together ` +
        `(MAX_ACTIVE_WORKFLOWS_TOTAL = ${cap}). Nothing was started. Try again in a few minutes, or stop one of yours with cancel_mining.`
    );
}

/** The refusal of a start over MAX_STARTS_PER_MINUTE. */
export function rateLimitText(limit: number): string {
    return (
        `You started ${limit} mining workflows in the last minute, the most allowed (MAX_STARTS_PER_MINUTE = ${limit}). ` +
        'Nothing was started. Wait a minute, then call start_mining again.'
    );
}

export const COUNT_UNSUPPORTED =
    'Could not check how many mining workflows are running: the workflow service refused the query the check needs, ' +
    'so nothing was started. Retrying will not help; tell the operator of this server (the cause is in its logs).';

export const COUNT_FAILED =
    'Could not check how many of your mining workflows are running, so nothing was started. Try again in a few seconds.';

export const KEY_REUSED =
    'This idempotency_key was already used with other arguments. Use a new key for different work, or the same ' +
    'arguments to get the workflow the key started.';

export const START_FAILED = 'Could not start the mining workflow: the workflow service did not accept it. Try again in a minute.';

export const START_UNCONFIRMED =
    'The mining workflow may have started, but it could not be confirmed. Call start_mining again with the same ' +
    'idempotency_key and arguments in a few seconds: that is safe and returns the workflow.';

/** The message for a backend failure: no URLs, keys or stack traces from the durable client's error. */
export const BACKEND_UNAVAILABLE =
    'The workflow service did not answer, so the status is unknown. Try again in a few seconds.';

export function refusalText(refusal: StartRefusal): string {
    switch (refusal.kind) {
        case 'over_work':
            return overWork(refusal.blocks, refusal.difficulty, refusal.expectedAttempts, refusal.maxWork);
        case 'at_cap':
            return activeCapText(refusal.count, refusal.cap);
        case 'at_total_cap':
            return totalCapText(refusal.cap);
        case 'rate_limited':
            return rateLimitText(refusal.limit);
        case 'count_failed':
            return COUNT_FAILED;
        case 'count_unsupported':
            return COUNT_UNSUPPORTED;
        case 'key_reused':
            return KEY_REUSED;
        case 'start_failed':
            return START_FAILED;
        case 'unconfirmed':
            return START_UNCONFIRMED;
        case 'unavailable':
            return BACKEND_UNAVAILABLE;
    }
}
