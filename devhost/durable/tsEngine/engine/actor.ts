/** One loaded instance in memory (an actor): its committed state, what waits for its next episode, its armed timers. */

import { EventType, type HistoryEvent } from '../history';
import type { InboxMessage, InstanceRecord } from '../store/taskHubStore';

/** A result that lives only in memory until the next episode commits it: an activity's, or a timer's. */
export interface Completion {
    executionId: string;
    event: HistoryEvent;
}

/** One loaded instance: its committed state plus what is waiting for its next episode. */
export interface Actor {
    record: InstanceRecord;
    history: HistoryEvent[];
    inbox: InboxMessage[];
    completions: Completion[];
    timers: Map<number, NodeJS.Timeout>;
    busy: boolean;
    /** Set when the instance was purged or replaced: late work for it is dropped. */
    retired: boolean;
}

/** Whether the instance has anything for an episode to do. */
export function hasWork(actor: Actor): boolean {
    if (actor.inbox.length > 0) {
        if (actor.record.runtimeStatus !== 'Suspended') return true;
        // A suspended instance only acts on resume and terminate.
        if (actor.inbox.some((m) => m.event.EventType === EventType.ExecutionResumed || m.event.EventType === EventType.ExecutionTerminated)) {
            return true;
        }
    }
    return actor.completions.length > 0 && actor.record.runtimeStatus !== 'Suspended';
}

export function cancelTimer(actor: Actor, id: number): void {
    const handle = actor.timers.get(id);
    if (handle) clearTimeout(handle);
    actor.timers.delete(id);
}

export function clearTimers(actor: Actor): void {
    for (const handle of actor.timers.values()) clearTimeout(handle);
    actor.timers.clear();
}
