/**
 * The instances this host holds in memory (one actor each), by id: loading one from the store, adopting a
 * new one, retiring one that was purged or replaced. Reads prefer memory, which is never behind the store.
 */
import { EventType, type HistoryEvent } from '../history';
import type { InboxMessage, InstanceRecord } from '../store/taskHubStore';
import { clearTimers, type Actor } from './actor';
import type { EngineComponents } from './engineComponents';

export class LoadedInstances {
    #actors = new Map<string, Actor>();

    constructor(private readonly parts: Pick<EngineComponents, 'store' | 'recentlyEnded'>) {}

    get(instanceId: string): Actor | undefined {
        return this.#actors.get(instanceId);
    }

    all(): IterableIterator<Actor> {
        return this.#actors.values();
    }

    /** The instance's current record: the loaded one's, else one that ended lately, else the stored one. */
    async current(instanceId: string): Promise<InstanceRecord | undefined> {
        const held = this.#actors.get(instanceId) ?? this.parts.recentlyEnded.get(instanceId);
        return held?.record ?? (await this.parts.store.getInstance(instanceId));
    }

    async history(record: InstanceRecord): Promise<HistoryEvent[]> {
        const held = this.#actors.get(record.instanceId) ?? this.parts.recentlyEnded.get(record.instanceId);
        if (held && held.record.executionId === record.executionId) return held.history;
        return this.parts.store.loadHistory(record);
    }

    /** The loaded actor for a stored instance, loading its history and inbox if need be. */
    async load(record: InstanceRecord): Promise<Actor> {
        const existing = this.#actors.get(record.instanceId);
        if (existing) return existing;
        const [history, inbox] = await Promise.all([
            this.parts.store.loadHistory(record),
            this.parts.store.loadInbox(record.instanceId),
        ]);
        // The start message first: inbox keys order later messages by arrival, but not against it.
        inbox.sort((a, b) => Number(b.event.EventType === EventType.ExecutionStarted) - Number(a.event.EventType === EventType.ExecutionStarted));
        return this.#actors.get(record.instanceId) ?? this.adopt(record, history, inbox);
    }

    adopt(record: InstanceRecord, history: HistoryEvent[], inbox: InboxMessage[]): Actor {
        const actor: Actor = { record, history, inbox, completions: [], timers: new Map(), busy: false, retired: false };
        this.#actors.set(record.instanceId, actor);
        return actor;
    }

    /** Drops a finished instance from memory once nothing waits for it (kept apart until surely stored). */
    forget(actor: Actor): void {
        if (this.#actors.get(actor.record.instanceId) !== actor) return;
        this.#actors.delete(actor.record.instanceId);
        this.parts.recentlyEnded.keep(actor.record, actor.history);
    }

    /** The instance was purged or replaced: late work for this actor is dropped. */
    retire(actor: Actor): void {
        actor.retired = true;
        clearTimers(actor);
        if (this.#actors.get(actor.record.instanceId) === actor) this.#actors.delete(actor.record.instanceId);
    }
}
