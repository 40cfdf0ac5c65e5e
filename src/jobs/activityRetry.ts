import * as df from 'durable-functions';

/**
 * The retry policy of every job's activity calls. On the Node.js path the Durable extension reports a worker
 * exit, an out-of-memory or a function timeout as an ordinary activity failure, with no platform retry
 * (https://github.com/Azure/azure-functions-durable-js/issues/543), so the orchestrator retries. Safe because
 * an activity's answer is a function of its input alone; bounded, so a deterministic error still fails the
 * workflow: ACTIVITY_MAX_ATTEMPTS attempts, 2 s then 4 s apart.
 */
export const ACTIVITY_MAX_ATTEMPTS = 3;
export const ACTIVITY_FIRST_RETRY_MS = 2000;

export function activityRetry(): df.RetryOptions {
    const options = new df.RetryOptions(ACTIVITY_FIRST_RETRY_MS, ACTIVITY_MAX_ATTEMPTS);
    options.backoffCoefficient = 2;
    options.maxRetryIntervalInMilliseconds = 30_000;
    return options;
}
