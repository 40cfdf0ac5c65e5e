/**
 * Task hub state in Azure Tables (Azurite locally), one table per hub and one partition per instance (the
 * layout: tableCodec.ts). An episode commits as one entity-group transaction, so a crash leaves either all
 * of it or none. A lease row (tableLease.ts) keeps a second host from running the same hub against the
 * same storage; the reads are in tableQueries.ts.
 */
import { TableClient, type TransactionAction } from '@azure/data-tables';
import { TERMINAL_STATUSES, type HistoryEvent } from '../history';
import {
    historyEntity,
    historyFrom,
    historyPrefix,
    instanceEntity,
    messageEntity,
    messageFrom,
    partitionKey,
    recordFrom,
    INSTANCE_ROW,
    type Entity,
    type StoredEntity,
} from './tableCodec';
import { describe, statusOf, transactionError } from './tableErrors';
import { TableLease, type TableLeaseOptions } from './tableLease';
import { partitionRows, queryStatusRows } from './tableQueries';
import { ConcurrencyError, type EpisodeCommit, type InboxMessage, type InstancePage, type InstanceQuery, type InstanceRecord, type TaskHubStore } from './taskHubStore';

/** An entity-group transaction holds at most 100 operations. */
const MAX_BATCH = 100;

export interface TableStoreOptions extends TableLeaseOptions {
    connectionString: string;
}

export class TableStore implements TaskHubStore {
    readonly description: string;
    // Azure Storage keeps what it acknowledged; Azurite, which this store cannot tell from it, may not.
    readonly losesRecentWrites = true;
    #table: TableClient;
    #lease: TableLease;

    constructor(options: TableStoreOptions) {
        const tableName = `${options.hubName}Devhost`;
        this.#table = TableClient.fromConnectionString(options.connectionString, tableName, {
            allowInsecureConnection: true,
            // Brief client retries: the engine retries failed episodes itself, with backoff. The client's defaults
            // (3 retries from 1 s, exponential) held every call through an outage for about 6 s before the engine
            // even heard of it, and as long again after storage was back.
            retryOptions: { maxRetries: 2, retryDelayInMs: 250, maxRetryDelayInMs: 2000 },
        });
        this.#lease = new TableLease(this.#table, options);
        this.description = `Azure Tables: table ${tableName} at ${this.#table.url.replace(/\/[^/]*$/, '')}`;
    }

    async open(): Promise<void> {
        try {
            await this.#table.createTable();
        } catch (err) {
            throw new Error(`Cannot reach Azure Table storage (${this.#table.url}): ${describe(err)}`, { cause: err });
        }
        await this.#lease.take();
    }

    close(): Promise<void> {
        return this.#lease.release();
    }

    async createInstance(
        record: InstanceRecord,
        start: InboxMessage,
        replace: (existing: InstanceRecord) => boolean,
        tableRemade = false
    ): Promise<{ created: InstanceRecord } | { existing: InstanceRecord }> {
        const pk = partitionKey(record.instanceId);
        try {
            const response = await this.#table.submitTransaction([
                ['create', instanceEntity(record)],
                ['create', messageEntity(pk, start)],
            ]);
            return { created: { ...record, etag: response.subResponses[0]?.etag ?? '*' } };
        } catch (err) {
            // The table itself may be what a killed Azurite lost (created after its last save): make it again.
            if (statusOf(err) === 404 && !tableRemade) {
                await this.#table.createTable();
                return this.createInstance(record, start, replace, true);
            }
            if (statusOf(err) !== 409) throw err;
        }
        const existing = await this.getInstance(record.instanceId);
        if (!existing) return this.createInstance(record, start, replace);
        if (!replace(existing)) return { existing };
        // A finished instance started again: a fresh execution, and nothing left over for the old one.
        const stale = (await partitionRows(this.#table, pk, 'm_')).slice(0, MAX_BATCH - 2);
        let etag: string;
        try {
            etag = await this.#transact([
                ['update', instanceEntity(record), 'Replace', { etag: existing.etag ?? '*' }],
                ...stale.map((row): TransactionAction => ['delete', row]),
                ['upsert', messageEntity(pk, start)],
            ]);
        } catch (err) {
            // Another start replaced it first. As the extension's provider does (its conditional write fails and is
            // ignored), this start is accepted and changes nothing: the winner's execution is the one that runs.
            const winner = err instanceof ConcurrencyError ? await this.getInstance(record.instanceId) : undefined;
            if (winner === undefined) throw err;
            return { existing: winner };
        }
        const created = { ...record, etag };
        void this.#collectGarbage(created);
        return { created };
    }

    async getInstance(instanceId: string): Promise<InstanceRecord | undefined> {
        try {
            const entity = await this.#table.getEntity<Record<string, unknown>>(partitionKey(instanceId), INSTANCE_ROW);
            return recordFrom(entity as StoredEntity);
        } catch (err) {
            if (statusOf(err) === 404) return undefined;
            throw err;
        }
    }

    async loadHistory(record: InstanceRecord): Promise<HistoryEvent[]> {
        const rows = await partitionRows(this.#table, partitionKey(record.instanceId), historyPrefix(record.executionId));
        return rows.flatMap(historyFrom);
    }

    async loadInbox(instanceId: string): Promise<InboxMessage[]> {
        const rows = await partitionRows(this.#table, partitionKey(instanceId), 'm_');
        return rows.map(messageFrom);
    }

    async addMessage(instanceId: string, message: InboxMessage): Promise<void> {
        try {
            await this.#table.createEntity(messageEntity(partitionKey(instanceId), message));
        } catch (err) {
            if (statusOf(err) !== 409) throw err; // already delivered
        }
    }

    async commitEpisode(commit: EpisodeCommit): Promise<InstanceRecord> {
        const { record } = commit;
        const pk = partitionKey(record.instanceId);
        const actions: TransactionAction[] = [['update', instanceEntity(record), 'Replace', { etag: record.etag ?? '*' }]];
        if (commit.newEvents.length > 0) {
            // historyChunks already counts this episode's chunk.
            actions.push(['create', historyEntity(pk, record.executionId, record.historyChunks - 1, commit.newEvents)]);
        }
        for (const key of commit.consumed) actions.push(['delete', { partitionKey: pk, rowKey: `m_${key}` }]);
        for (const message of commit.added) actions.push(['upsert', messageEntity(pk, message)]);
        const committed = { ...record, etag: await this.#transact(actions) };
        if (commit.newExecution) void this.#collectGarbage(committed);
        return committed;
    }

    queryInstances(query: InstanceQuery): Promise<InstancePage> {
        return queryStatusRows(this.#table, query);
    }

    async activeInstances(): Promise<InstanceRecord[]> {
        const { instances } = await this.queryInstances({});
        return instances.filter((record) => !TERMINAL_STATUSES.has(record.runtimeStatus));
    }

    async purgeInstance(instanceId: string): Promise<boolean> {
        const rows = await partitionRows(this.#table, partitionKey(instanceId), '');
        await this.#deleteRows(rows, (batch) => this.#transact(batch));
        return rows.some((row) => row.rowKey === INSTANCE_ROW);
    }

    async restoreInstance(record: InstanceRecord, history: readonly HistoryEvent[], inbox: readonly InboxMessage[]): Promise<InstanceRecord> {
        // The table itself may be what was lost.
        await this.#table.createTable();
        const pk = partitionKey(record.instanceId);
        // Whatever is left of the partition goes first, so no stale history chunk is read back with the restored one.
        await this.#deleteRows(await partitionRows(this.#table, pk, ''));
        const restored: InstanceRecord = { ...record, historyChunks: history.length > 0 ? 1 : 0 };
        const actions: TransactionAction[] = [['upsert', instanceEntity(restored), 'Replace']];
        if (history.length > 0) actions.push(['upsert', historyEntity(pk, record.executionId, 0, history), 'Replace']);
        const room = MAX_BATCH - actions.length;
        for (const message of inbox.slice(0, room)) actions.push(['upsert', messageEntity(pk, message), 'Replace']);
        const etag = await this.#transact(actions);
        // More messages than one transaction holds: the rest one by one (each is idempotent by key).
        for (const message of inbox.slice(room)) await this.addMessage(record.instanceId, message);
        return { ...restored, etag };
    }

    /** Runs a transaction and returns the instance row's new ETag (the first action is always that row). */
    async #transact(actions: TransactionAction[]): Promise<string> {
        try {
            const response = await this.#table.submitTransaction(actions);
            return response.subResponses[0]?.etag ?? '*';
        } catch (err) {
            throw transactionError(err);
        }
    }

    /** Deletes rows of one partition, as many transactions as it takes. */
    async #deleteRows(
        rows: readonly Entity[],
        submit: (batch: TransactionAction[]) => Promise<unknown> = (batch) => this.#table.submitTransaction(batch)
    ): Promise<void> {
        for (let i = 0; i < rows.length; i += MAX_BATCH) {
            await submit(rows.slice(i, i + MAX_BATCH).map((row): TransactionAction => ['delete', row]));
        }
    }

    /** Deletes history rows of executions that are no longer current (after continue-as-new or a restart). */
    async #collectGarbage(record: InstanceRecord): Promise<void> {
        try {
            const pk = partitionKey(record.instanceId);
            const current = historyPrefix(record.executionId);
            await this.#deleteRows((await partitionRows(this.#table, pk, 'h_')).filter((row) => !row.rowKey.startsWith(current)));
        } catch {
            // Best effort: stale rows are never read, and a later pass or a purge removes them.
        }
    }
}
