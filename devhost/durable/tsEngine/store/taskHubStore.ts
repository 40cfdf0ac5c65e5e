import type { HistoryEvent, RuntimeStatus } from '../history';

/** Where a sub-orchestration reports back to. */
export interface ParentRef {
    instanceId: string;
    executionId: string;
    /** The parent's sequence number for this sub-orchestration. */
    taskScheduledId: number;
    name: string;
}

/** One orchestration instance's committed state (the "Instances" row). Payloads are JSON text. */
export interface InstanceRecord {
    instanceId: string;
    name: string;
    version: string;
    executionId: string;
    runtimeStatus: RuntimeStatus;
    input: string | null;
    output: string | null;
    customStatus: string | null;
    createdTime: string;
    lastUpdatedTime: string;
    parent?: ParentRef;
    /** Committed history chunks of the current execution (one per episode). */
    historyChunks: number;
    /** The store's concurrency token for the row; opaque to the engine. */
    etag?: string;
}

/**
 * A message for an instance that arrived from outside its own episodes (start, external event, terminate,
 * suspend, resume, a sub-orchestration's result). It stays in the store until an episode consumes it, so
 * a crash loses nothing. `key` makes delivery idempotent.
 */
export interface InboxMessage {
    key: string;
    event: HistoryEvent;
}

export interface InstanceQuery {
    createdTimeFrom?: string;
    createdTimeTo?: string;
    runtimeStatus?: readonly RuntimeStatus[];
    instanceIdPrefix?: string;
    /** Page size; with `continuationToken` to resume. */
    top?: number;
    continuationToken?: string;
}

export interface InstancePage {
    instances: InstanceRecord[];
    continuationToken?: string;
}

export interface EpisodeCommit {
    /** The instance row as it must be after the episode. */
    record: InstanceRecord;
    /** Events that extend the current execution's history; empty for a new execution. */
    newEvents: HistoryEvent[];
    /** Inbox messages this episode consumed. */
    consumed: readonly string[];
    /** Messages to add in the same transaction (the next execution's start, after continue-as-new). */
    added: readonly InboxMessage[];
    /** The record starts a new execution (continue-as-new): the old history is dropped. */
    newExecution: boolean;
}

export class ConcurrencyError extends Error {
    override name = 'ConcurrencyError';
}

/** The store refused the data itself (too large, invalid): trying again cannot succeed. */
export class StorageRejectedError extends Error {
    override name = 'StorageRejectedError';
}

/**
 * The store no longer holds the instance an episode updates: its row (or its whole table) is gone although
 * this host never purged it. Azure Storage does not lose acknowledged writes, but Azurite does when it is
 * killed (it saves to disk every few seconds); the engine then writes the instance back from memory.
 */
export class InstanceMissingError extends Error {
    override name = 'InstanceMissingError';
}

export class LeaseError extends Error {
    override name = 'LeaseError';
}

/**
 * The persistent state of one task hub. Implementations: Azure Tables (Azurite locally; survives a crash)
 * and process memory (fast tests). Every method that changes an instance is atomic for that instance.
 */
export interface TaskHubStore {
    readonly description: string;
    /**
     * True when the store may lose writes it acknowledged (Azurite, killed between its saves), so the engine
     * keeps what ended until it is surely stored (engine/recentlyEnded.ts).
     */
    readonly losesRecentWrites: boolean;
    /** Prepares the store and takes the task hub's lease, so two hosts never run the same hub. */
    open(): Promise<void>;
    close(): Promise<void>;

    /**
     * Creates the instance row together with its start message. When a row exists, `replace(existing)` decides:
     * true overwrites it (a finished instance started again), false leaves it and returns it.
     */
    createInstance(
        record: InstanceRecord,
        start: InboxMessage,
        replace: (existing: InstanceRecord) => boolean
    ): Promise<{ created: InstanceRecord } | { existing: InstanceRecord }>;
    getInstance(instanceId: string): Promise<InstanceRecord | undefined>;
    loadHistory(record: InstanceRecord): Promise<HistoryEvent[]>;
    loadInbox(instanceId: string): Promise<InboxMessage[]>;
    /** Adds a message unless one with the same key is there. */
    addMessage(instanceId: string, message: InboxMessage): Promise<void>;
    /** Applies an episode atomically; fails with ConcurrencyError if the row changed since it was read. */
    commitEpisode(commit: EpisodeCommit): Promise<InstanceRecord>;
    queryInstances(query: InstanceQuery): Promise<InstancePage>;
    /** Instances that are not finished. */
    activeInstances(): Promise<InstanceRecord[]>;
    /** Deletes everything about the instance; false if there was nothing. */
    purgeInstance(instanceId: string): Promise<boolean>;
    /**
     * Writes a loaded instance back after the store lost it (InstanceMissingError): its row, the history of
     * its current execution and its waiting messages, replacing whatever is left of it. Answers the record
     * as stored now (new concurrency token; the whole history counted as one chunk).
     */
    restoreInstance(record: InstanceRecord, history: readonly HistoryEvent[], inbox: readonly InboxMessage[]): Promise<InstanceRecord>;
}
