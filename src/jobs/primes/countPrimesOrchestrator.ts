import { z } from 'zod';
import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { checkTime, limitsSchema } from '../limits';
import { rangeWindow } from '../rangeWindow';
import {
    BELOW_LIMIT,
    COUNT_SEGMENT,
    IN_FLIGHT_LIMIT,
    SEGMENT_LIMIT,
    segmentOutputSchema,
    segmentsOf,
    type PrimeCountResult,
    type PrimeProgress,
    type SegmentInput,
} from './contracts';

/**
 * The CountPrimes orchestration: fan-out/fan-in over segments of [0, below), up to `in_flight` activities
 * at a time in a sliding window (src/jobs/rangeWindow.ts), publishing the segments counted, in order, as
 * each is taken. Replay-safe: no clock but the orchestration's
 * own, no I/O, no randomness; the segments follow from the input alone.
 */

const inputSchema = z.object({
    below: z.number().int().min(2).max(BELOW_LIMIT),
    segment_size: z.number().int().min(1).max(SEGMENT_LIMIT),
    in_flight: z.number().int().min(1).max(IN_FLIGHT_LIMIT),
    ...limitsSchema.shape,
});

export function countPrimesOrchestrator(): OrchestrationHandler {
    return function* (context: OrchestrationContext) {
        const parsed = inputSchema.safeParse(context.df.getInput());
        if (!parsed.success) {
            throw new Error(
                `Invalid CountPrimes input: expected {below: integer from 2 to ${BELOW_LIMIT}, segment_size: integer from 1 to ${SEGMENT_LIMIT}, in_flight: integer from 1 to ${IN_FLIGHT_LIMIT}}`
            );
        }
        const { below, segment_size: segmentSize, in_flight: inFlight } = parsed.data;
        const startedAt = context.df.currentUtcDateTime.getTime();
        const total = segmentsOf(below, segmentSize);
        const progress = (done: number): PrimeProgress => ({ segments_done: done, segments_total: total });
        context.df.setCustomStatus(progress(0));

        let count = 0;
        const segmentOf = (index: number): SegmentInput => ({ start: index * segmentSize, end: Math.min((index + 1) * segmentSize, below) });
        yield* rangeWindow<never>(context, {
            width: inFlight,
            count: total,
            start: (index) => context.df.callActivity(COUNT_SEGMENT, segmentOf(index)),
            take(index, raw) {
                const input = segmentOf(index);
                const answer = segmentOutputSchema.safeParse(raw);
                // An answer for another range would count some numbers twice or not at all: refuse it.
                if (!answer.success || answer.data.start !== input.start || answer.data.end !== input.end) {
                    throw new Error(`CountPrimeSegment answered for another range than [${input.start}, ${input.end})`);
                }
                count += answer.data.count;
                context.df.setCustomStatus(progress(index + 1));
                // Its work is fixed by `below` (the plan's cost); its time is bounded here (src/jobs/limits.ts).
                if (index + 1 < total) checkTime(parsed.data, startedAt, context.df.currentUtcDateTime.getTime());
                return undefined;
            },
        });

        const result: PrimeCountResult = {
            below,
            count,
            segments: total,
            // currentUtcDateTime is replayed from history, so this is the same on every replay.
            elapsed_ms: Math.max(0, context.df.currentUtcDateTime.getTime() - startedAt),
        };
        return result;
    };
}
