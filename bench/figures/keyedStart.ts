/** The figures bench/keyedStart.ts measures and bench/report/keyedStart.ts renders (why apart: bench/common.ts). */
import type { Backend } from '../backends';

export type StartKind = 'unkeyed' | 'keyed' | 'retry' | 'racingPair';
export const START_KINDS: readonly StartKind[] = ['unkeyed', 'keyed', 'retry', 'racingPair'];

export interface KeyedStartFigures {
    rounds: number;
    loadBefore: number;
    loadAfter: number;
    /** Milliseconds per call, by backend and kind. */
    calls: Record<Backend, Record<StartKind, number[]>>;
    extensionSkipped: string | false;
}
