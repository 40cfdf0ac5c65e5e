import { TERMINAL_STATUSES, type HistoryEvent } from '../history';
import {
    ConcurrencyError,
    type EpisodeCommit,
    type InboxMessage,
    type InstancePage,
    type InstanceQuery,
    type InstanceRecord,
    type TaskHubStore,
} from './taskHubStore';
import { matchesQuery, pageOf } from './queryInstances';

interface Partition {
    record: InstanceRecord;
    history: HistoryEvent[];
    inbox: Map<string, InboxMessage>;
}

/** Task hub state in process memory: fast, and gone when the process ends. For tests and `--storage memory`; `npm start` keeps it in Azure Storage. */
export class MemoryStore implements TaskHubStore {
    readonly description = 'process memory (lost on exit)';
    readonly losesRecentWrites: boolean = false;
    #partitions = new Map<string, Partition>();
    #etag = 0;

    async open(): Promise<void> {}
    async close(): Promise<void> {}

    async createInstance(
        record: InstanceRecord,
        start: InboxMessage,
        replace: (existing: InstanceRecord) => boolean
    ): Promise<{ created: InstanceRecord } | { existing: InstanceRecord }> {
        const existing = this.#partitions.get(record.instanceId);
        if (existing && !replace(copy(existing.record))) return { existing: copy(existing.record) };
        const created = { ...copy(record), etag: this.#nextEtag() };
        this.#partitions.set(record.instanceId, { record: created, history: [], inbox: new Map([[start.key, copy(start)]]) });
        return { created: copy(created) };
    }

    async getInstance(instanceId: string): Promise<InstanceRecord | undefined> {
        const partition = this.#partitions.get(instanceId);
        return partition && copy(partition.record);
    }

    async loadHistory(record: InstanceRecord): Promise<HistoryEvent[]> {
        const partition = this.#partitions.get(record.instanceId);
        return partition && partition.record.executionId === record.executionId ? copy(partition.history) : [];
    }

    async loadInbox(instanceId: string): Promise<InboxMessage[]> {
        return copy([...(this.#partitions.get(instanceId)?.inbox.values() ?? [])]);
    }

    async addMessage(instanceId: string, message: InboxMessage): Promise<void> {
        const inbox = this.#partitions.get(instanceId)?.inbox;
        if (inbox && !inbox.has(message.key)) inbox.set(message.key, copy(message));
    }

    async commitEpisode(commit: EpisodeCommit): Promise<InstanceRecord> {
        const partition = this.#partitions.get(commit.record.instanceId);
        if (!partition || partition.record.etag !== commit.record.etag) {
            throw new ConcurrencyError(`Instance ${commit.record.instanceId} changed during the episode.`);
        }
        if (commit.newExecution) partition.history = [];
        partition.history.push(...copy(commit.newEvents));
        for (const key of commit.consumed) partition.inbox.delete(key);
        for (const message of commit.added) partition.inbox.set(message.key, copy(message));
        partition.record = { ...copy(commit.record), etag: this.#nextEtag() };
        return copy(partition.record);
    }

    async queryInstances(query: InstanceQuery): Promise<InstancePage> {
        const matching = [...this.#partitions.values()].map((p) => p.record).filter((r) => matchesQuery(r, query));
        return pageOf(matching.map(copy), query);
    }

    async activeInstances(): Promise<InstanceRecord[]> {
        return [...this.#partitions.values()]
            .filter((p) => !TERMINAL_STATUSES.has(p.record.runtimeStatus))
            .map((p) => copy(p.record));
    }

    async purgeInstance(instanceId: string): Promise<boolean> {
        return this.#partitions.delete(instanceId);
    }

    async restoreInstance(record: InstanceRecord, history: readonly HistoryEvent[], inbox: readonly InboxMessage[]): Promise<InstanceRecord> {
        const restored = { ...copy(record), historyChunks: history.length > 0 ? 1 : 0, etag: this.#nextEtag() };
        this.#partitions.set(record.instanceId, {
            record: restored,
            history: copy([...history]),
            inbox: new Map(inbox.map((m) => [m.key, copy(m)])),
        });
        return copy(restored);
    }

    #nextEtag(): string {
        return String(++this.#etag);
    }
}

/** Callers must not share objects with the store, as they would not with a real one. */
function copy<T>(value: T): T {
    return structuredClone(value);
}
