/** The identifiers and timestamps the engine gives instances: new ids, a new instance's row, its clock. */
import { randomUUID } from 'node:crypto';
import { toJsonText } from '../history';
import type { Actor } from './actor';
import type { InstanceRecord } from '../store/taskHubStore';

/** A fresh instance or execution id: a UUID without dashes, as the extension makes them. */
export function newId(): string {
    return randomUUID().replace(/-/g, '');
}

/** The row of an instance that has just been started: Pending, with a new execution and no history yet. */
export function newRecord(instanceId: string, name: string, version: string, input: unknown): InstanceRecord {
    const now = new Date().toISOString();
    return {
        instanceId,
        name,
        version,
        executionId: newId(),
        runtimeStatus: 'Pending',
        input: toJsonText(input),
        output: null,
        customStatus: null,
        createdTime: now,
        lastUpdatedTime: now,
        historyChunks: 0,
    };
}

/** Timestamps within an instance never go backwards, whatever the wall clock does. */
export function instanceClock(actor: Actor): string {
    const last = actor.history.length > 0 ? Date.parse(actor.history[actor.history.length - 1]?.Timestamp ?? '') : 0;
    return new Date(Math.max(Date.now(), (Number.isNaN(last) ? 0 : last) + 1)).toISOString();
}
