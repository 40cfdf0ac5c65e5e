import * as df from 'durable-functions';
import { COUNT_PRIMES, COUNT_SEGMENT } from './contracts';
import { countPrimesOrchestrator } from './countPrimesOrchestrator';
import { countSegmentOffThread } from './countSegmentActivity';

/** CountPrimes and CountPrimeSegment. No settings here: what a replay depends on is in each workflow's input. */
export function registerPrimeCountFunctions(): void {
    df.app.orchestration(COUNT_PRIMES, countPrimesOrchestrator());
    df.app.activity(COUNT_SEGMENT, { handler: (input: unknown) => countSegmentOffThread(input) });
}
