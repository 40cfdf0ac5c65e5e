import { z } from 'zod';
import type { Config } from '../../settings';
import { idempotencyKeyField, integerField, toolArguments, type JobDefinition, type JobProgress, type JobResult } from '../job';
import {
    BELOW_LIMIT,
    COUNT_PRIMES,
    IN_FLIGHT_LIMIT,
    SEGMENT_SIZE,
    primeCountResultSchema,
    primeProgressSchema,
    segmentsOf,
    type PrimeCountResult,
    type PrimeProgress,
} from './contracts';
import { registerPrimeCountFunctions } from './functions';

/**
 * Counting primes as a job, the template for a job of your own (docs/how-it-works.md): the primes below
 * `below`, counted in segments, one activity each. Its cost is `below`: the numbers sieved. Every result
 * can be checked against the known values of π(x).
 */

function startDescription(config: Config): string {
    return (
        `Counts the primes below \`below\` as a durable background workflow, in segments of ${SEGMENT_SIZE} numbers, ` +
        `waiting up to ${config.waitBudgetSeconds} seconds for it to finish. ` +
        'If status is "completed", use `result.count`. ' +
        'If status is "running", call get_prime_count_result with the returned workflow_id after poll_after_seconds, ' +
        'and keep polling that way until status is "completed" or "failed". ' +
        'If status is "failed", do not poll; tell the user the `error`. ' +
        'The work is `below` numbers sieved. ' +
        'A call over the work limit, or while too many of your workflows run, is refused with an error that says ' +
        'what to do (lower below, wait, or cancel_prime_count one). ' +
        'Pass an idempotency_key when you may retry this call, so that a retry does not start the work twice.'
    );
}

function buildInputSchema() {
    return toolArguments({
        below: integerField('below', 2, BELOW_LIMIT)
            .describe(`Count the primes below this number, 2 to ${BELOW_LIMIT}.`),
        idempotency_key: idempotencyKeyField(),
    });
}

const startInputSchema = buildInputSchema();
const belowSchema = z.object({ below: z.number().int().min(2) });
const segmentsSchema = z.object({ below: z.number().int().min(2), segment_size: z.number().int().min(1) });

export const COUNT_PRIMES_JOB: JobDefinition = {
    name: 'count_primes',
    orchestrator: COUNT_PRIMES,
    tools: {
        start: { name: 'start_prime_count', title: 'Start prime count' },
        get: {
            name: 'get_prime_count_result',
            title: 'Get prime count result',
            description:
                'Reports the status of a prime count started by start_prime_count. ' +
                'Pass the workflow_id exactly as start_prime_count returned it; never make one up. ' +
                'If status is "running", wait poll_after_seconds, then call get_prime_count_result again with the same workflow_id. ' +
                'If status is "completed", use `result.count` and stop polling. ' +
                'If status is "failed", stop polling and tell the user the `error`. ' +
                'If status is "not_found", stop polling this id and call start_prime_count to start a new workflow.',
        },
        cancel: {
            name: 'cancel_prime_count',
            title: 'Cancel prime count',
            description:
                'Cancels a prime count started by start_prime_count and reports its status afterwards. ' +
                'Call it only when the user wants the work stopped. ' +
                'Expect status "failed" with reason "cancelled"; do not poll that workflow again. ' +
                'A workflow that had already ended keeps its status ("completed": use `result`; "failed": report `error`). ' +
                'If status is "running", the cancellation is not visible yet: call get_prime_count_result after poll_after_seconds. ' +
                'If status is "not_found", no workflow has this id: do not retry it.',
        },
    },
    startDescription,
    instructions:
        'Counting primes runs as a durable background workflow. Call start_prime_count; if it answers "running", ' +
        'poll get_prime_count_result with its workflow_id every poll_after_seconds until "completed" or "failed". ' +
        'Use cancel_prime_count only to stop work the user no longer wants.',
    noun: 'prime count workflow',
    startInput: () => startInputSchema,
    plan(args, config) {
        const { below } = belowSchema.parse(args);
        return {
            // PARALLEL_RANGES as the workflow starts, within what CountPrimes accepts.
            input: { below, segment_size: SEGMENT_SIZE, in_flight: Math.min(config.parallelRanges, IN_FLIGHT_LIMIT), time_limit_seconds: config.maxWorkflowSeconds },
            matchOn: ['below'],
            cost: below,
            initialProgress: { segments_done: 0, segments_total: segmentsOf(below, SEGMENT_SIZE) } satisfies PrimeProgress,
        };
    },
    result: { schema: primeCountResultSchema as z.ZodType<JobResult>, description: 'completed only: the count of primes.' },
    progress: {
        schema: primeProgressSchema as z.ZodType<JobProgress>,
        description: 'running only: segments counted so far.',
        counts: (progress) => ({ done: (progress as PrimeProgress).segments_done, total: (progress as PrimeProgress).segments_total }),
        message: (progress) => `Counted ${(progress as PrimeProgress).segments_done} of ${(progress as PrimeProgress).segments_total} segments`,
        initial(input) {
            const parsed = segmentsSchema.safeParse(input);
            return parsed.success
                ? ({ segments_done: 0, segments_total: segmentsOf(parsed.data.below, parsed.data.segment_size) } satisfies PrimeProgress)
                : undefined;
        },
    },
    completedMessage: (result) => `Counted ${(result as PrimeCountResult).count} primes below ${(result as PrimeCountResult).below}`,
    workingMessage: 'Counting primes',
    failedFallback: 'The prime count workflow failed.',
    failedNext: 'Do not poll again. Tell the user that the prime count failed and why; call start_prime_count again only if they want to retry.',
    resource: { scheme: 'primes', name: 'prime-count-workflow', title: 'Prime count workflow status' },
    registerFunctions: registerPrimeCountFunctions,
};
