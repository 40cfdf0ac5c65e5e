import { hostname } from 'node:os';
import { odata, RestError, TableClient, type TableEntity, type TransactionAction } from '@azure/data-tables';
import { TERMINAL_STATUSES, type HistoryEvent, type RuntimeStatus } from '../history';
import { matchesQuery, pageOf } from './queryInstances';
import {
    ConcurrencyError,
    InstanceMissingError,
    LeaseError,
    StorageRejectedError,
    type EpisodeCommit,
    type InboxMessage,
    type InstancePage,
    type InstanceQuery,
    type InstanceRecord,
    type ParentRef,
    type TaskHubStore,
} from './taskHubStore';

/**
 * Task hub state in Azure Tables (Azurite locally), one table per hub. Each instance is one partition:
 *   RowKey "instance"                 the status row (what status queries read)
 *   RowKey "h_<executionId>_<n>"      the history of episode n of the current execution
 *   RowKey "m_<key>"                  a message waiting for the next episode
 * An episode commits as one entity-group transaction, so a crash leaves either all of it or none.
 * A lease row keeps a second host from running the same hub against the same storage.
 */

const INSTANCE_ROW = 'instance';
const LEASE_PARTITION = '$lease';
const LEASE_SECONDS = 15;
const RENEW_EVERY_MS = 5_000;
/** Azure Tables caps a string property at 64 KiB (32K UTF-16 characters); longer text is split. */
const CHUNK_CHARS = 30_000;
/** ... and an entity at 1 MiB: strings are UTF-16, so about 500K characters, less room for the rest. */
const MAX_ENTITY_CHARS = 450_000;
/** An entity-group transaction holds at most 100 operations. */
const MAX_BATCH = 100;

type Entity = TableEntity<Record<string, unknown>>;
/** What reads return: the entity plus its ETag. */
type StoredEntity = Entity & { etag?: string };

export interface TableStoreOptions {
    connectionString: string;
    hubName: string;
    /** Called when another host took the lease: this one must stop processing. */
    onLeaseLost?: (reason: string) => void;
    /** How often the lease is renewed; RENEW_EVERY_MS unless a test wants it sooner. */
    renewEveryMs?: number;
}

export class TableStore implements TaskHubStore {
    readonly description: string;
    #table: TableClient;
    #leaseEtag: string | undefined;
    #renewTimer: NodeJS.Timeout | undefined;
    readonly #owner = `${hostname()}:${process.pid}`;

    constructor(private readonly options: TableStoreOptions) {
        const tableName = `${options.hubName}Devhost`;
        this.#table = TableClient.fromConnectionString(options.connectionString, tableName, {
            allowInsecureConnection: true,
            // Brief client retries: the engine retries failed episodes itself, with backoff. The client's defaults
            // (3 retries from 1 s, exponential) held every call through an outage for about 6 s before the engine
            // even heard of it, and as long again after storage was back.
            retryOptions: { maxRetries: 2, retryDelayInMs: 250, maxRetryDelayInMs: 2000 },
        });
        this.description = `Azure Tables: table ${tableName} at ${this.#table.url.replace(/\/[^/]*$/, '')}`;
    }

    async open(): Promise<void> {
        try {
            await this.#table.createTable();
        } catch (err) {
            throw new Error(`Cannot reach Azure Table storage (${this.#table.url}): ${describe(err)}`, { cause: err });
        }
        await this.#acquireLease();
        this.#renewTimer = setInterval(() => void this.#renewLease(), this.options.renewEveryMs ?? RENEW_EVERY_MS);
        this.#renewTimer.unref();
    }

    async close(): Promise<void> {
        clearInterval(this.#renewTimer);
        if (this.#leaseEtag) {
            // Best effort and brief: a lease left behind frees itself once this process is gone.
            await this.#table
                .deleteEntity(LEASE_PARTITION, 'lease', { etag: this.#leaseEtag, abortSignal: AbortSignal.timeout(1000) })
                .catch(() => undefined);
            this.#leaseEtag = undefined;
        }
    }

    async createInstance(
        record: InstanceRecord,
        start: InboxMessage,
        replace: (existing: InstanceRecord) => boolean
    ): Promise<{ created: InstanceRecord } | { existing: InstanceRecord }> {
        const pk = partitionKey(record.instanceId);
        try {
            const response = await this.#table.submitTransaction([
                ['create', instanceEntity(record)],
                ['create', messageEntity(pk, start)],
            ]);
            return { created: { ...record, etag: response.subResponses[0]?.etag ?? '*' } };
        } catch (err) {
            if (statusOf(err) !== 409) throw err;
        }
        const existing = await this.getInstance(record.instanceId);
        if (!existing) return this.createInstance(record, start, replace);
        if (!replace(existing)) return { existing };
        // A finished instance started again: a fresh execution, and nothing left over for the old one.
        const stale = (await this.#rows(pk, 'm_')).slice(0, MAX_BATCH - 2);
        const etag = await this.#transact([
            ['update', instanceEntity(record), 'Replace', { etag: existing.etag ?? '*' }],
            ...stale.map((row): TransactionAction => ['delete', row]),
            ['upsert', messageEntity(pk, start)],
        ]);
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
        const rows = await this.#rows(partitionKey(record.instanceId), `h_${record.executionId}_`);
        return rows.flatMap((row) => JSON.parse(readText(row, 'Events') ?? '[]') as HistoryEvent[]);
    }

    async loadInbox(instanceId: string): Promise<InboxMessage[]> {
        const rows = await this.#rows(partitionKey(instanceId), 'm_');
        return rows.map((row) => ({ key: row.rowKey.slice(2), event: JSON.parse(readText(row, 'Event') ?? 'null') as HistoryEvent }));
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
            const rowKey = `h_${record.executionId}_${String(record.historyChunks - 1).padStart(6, '0')}`;
            actions.push(['create', withinSizeLimit({ partitionKey: pk, rowKey, ...writeText('Events', JSON.stringify(commit.newEvents)) })]);
        }
        for (const key of commit.consumed) actions.push(['delete', { partitionKey: pk, rowKey: `m_${key}` }]);
        for (const message of commit.added) actions.push(['upsert', messageEntity(pk, message)]);
        const committed = { ...record, etag: await this.#transact(actions) };
        if (commit.newExecution) void this.#collectGarbage(committed);
        return committed;
    }

    async queryInstances(query: InstanceQuery): Promise<InstancePage> {
        const matching: InstanceRecord[] = [];
        for await (const entity of this.#table.listEntities<Record<string, unknown>>({
            queryOptions: { filter: odata`RowKey eq ${INSTANCE_ROW}` },
        })) {
            const record = recordFrom(entity as StoredEntity);
            if (matchesQuery(record, query)) matching.push(record);
        }
        return pageOf(matching, query);
    }

    async activeInstances(): Promise<InstanceRecord[]> {
        const { instances } = await this.queryInstances({});
        return instances.filter((record) => !TERMINAL_STATUSES.has(record.runtimeStatus));
    }

    async purgeInstance(instanceId: string): Promise<boolean> {
        const pk = partitionKey(instanceId);
        const rows = await this.#rows(pk, '');
        for (let i = 0; i < rows.length; i += MAX_BATCH) {
            await this.#transact(rows.slice(i, i + MAX_BATCH).map((row): TransactionAction => ['delete', row]));
        }
        return rows.some((row) => row.rowKey === INSTANCE_ROW);
    }

    async restoreInstance(record: InstanceRecord, history: readonly HistoryEvent[], inbox: readonly InboxMessage[]): Promise<InstanceRecord> {
        // The table itself may be what was lost.
        await this.#table.createTable();
        const pk = partitionKey(record.instanceId);
        // Whatever is left of the partition goes first, so no stale history chunk is read back with the restored one.
        const leftovers = await this.#rows(pk, '');
        for (let i = 0; i < leftovers.length; i += MAX_BATCH) {
            await this.#table.submitTransaction(leftovers.slice(i, i + MAX_BATCH).map((row): TransactionAction => ['delete', row]));
        }
        const restored: InstanceRecord = { ...record, historyChunks: history.length > 0 ? 1 : 0 };
        const actions: TransactionAction[] = [['upsert', instanceEntity(restored), 'Replace']];
        if (history.length > 0) {
            const rowKey = `h_${record.executionId}_${String(0).padStart(6, '0')}`;
            actions.push(['upsert', withinSizeLimit({ partitionKey: pk, rowKey, ...writeText('Events', JSON.stringify(history)) }), 'Replace']);
        }
        const room = MAX_BATCH - actions.length;
        for (const message of inbox.slice(0, room)) actions.push(['upsert', messageEntity(pk, message), 'Replace']);
        const etag = await this.#transact(actions);
        // More messages than one transaction holds: the rest one by one (each is idempotent by key).
        for (const message of inbox.slice(room)) await this.addMessage(record.instanceId, message);
        return { ...restored, etag };
    }

    /** Rows of one partition whose RowKey starts with `prefix`, in RowKey order. */
    async #rows(pk: string, prefix: string): Promise<Entity[]> {
        const filter = prefix
            ? odata`PartitionKey eq ${pk} and RowKey ge ${prefix} and RowKey lt ${prefix + '\uffff'}`
            : odata`PartitionKey eq ${pk}`;
        const rows: Entity[] = [];
        for await (const entity of this.#table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
            rows.push(entity as Entity);
        }
        return rows.sort((a, b) => (a.rowKey < b.rowKey ? -1 : a.rowKey > b.rowKey ? 1 : 0));
    }

    /** Runs a transaction and returns the instance row's new ETag (the first action is always that row). */
    async #transact(actions: TransactionAction[]): Promise<string> {
        try {
            const response = await this.#table.submitTransaction(actions);
            return response.subResponses[0]?.etag ?? '*';
        } catch (err) {
            const status = statusOf(err);
            if (status === 412 || status === 409) throw new ConcurrencyError(`The instance changed concurrently: ${describe(err)}`);
            // The row to update, or the table, is gone: storage lost it (this host retires an instance before purging it).
            if (status === 404) throw new InstanceMissingError(`The instance is missing from storage: ${describe(err)}`);
            // The service refused the data itself; sending it again cannot help.
            if (status === 400 || status === 413) throw new StorageRejectedError(describe(err));
            throw err;
        }
    }

    /** Deletes history rows of executions that are no longer current (after continue-as-new or a restart). */
    async #collectGarbage(record: InstanceRecord): Promise<void> {
        try {
            const pk = partitionKey(record.instanceId);
            const stale = (await this.#rows(pk, 'h_')).filter((row) => !row.rowKey.startsWith(`h_${record.executionId}_`));
            for (let i = 0; i < stale.length; i += MAX_BATCH) {
                await this.#table.submitTransaction(stale.slice(i, i + MAX_BATCH).map((row): TransactionAction => ['delete', row]));
            }
        } catch {
            // Best effort: stale rows are never read, and a later pass or a purge removes them.
        }
    }

    /**
     * Takes the hub's lease. A lease whose owner died (a killed host) frees as soon as its process is gone or
     * the lease expires; a live owner keeps renewing it, and after one lease period this host gives up.
     */
    async #acquireLease(): Promise<void> {
        const lease = () => ({
            partitionKey: LEASE_PARTITION,
            rowKey: 'lease',
            Owner: this.#owner,
            ExpiresAt: new Date(Date.now() + LEASE_SECONDS * 1000),
        });
        const startedAt = Date.now();
        for (;;) {
            try {
                this.#leaseEtag = (await this.#table.createEntity(lease())).etag;
                return;
            } catch (err) {
                if (statusOf(err) !== 409) throw err;
            }
            const current = await this.#table.getEntity<{ Owner?: string; ExpiresAt?: Date }>(LEASE_PARTITION, 'lease');
            const owner = current.Owner ?? '';
            const state = leaseState(owner, current.ExpiresAt);
            // A live process here is certain after a moment (a just-killed one may linger briefly);
            // an owner on another machine is only known dead once its lease expires.
            const patience = state === 'held here' ? 2_000 : (LEASE_SECONDS + 2) * 1000;
            if (state === 'free') {
                try {
                    this.#leaseEtag = (await this.#table.updateEntity(lease(), 'Replace', { etag: current.etag })).etag;
                    return;
                } catch (err) {
                    if (statusOf(err) !== 412) throw err; // someone else took it first: look again
                }
            } else if (Date.now() - startedAt > patience) {
                throw new LeaseError(
                    `Another local host (${owner}) is running task hub ${this.options.hubName} in this storage account. ` +
                        'Stop it, or give this one another TASKHUB_NAME.'
                );
            }
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
    }

    async #renewLease(): Promise<void> {
        if (!this.#leaseEtag) return;
        try {
            const lease = {
                partitionKey: LEASE_PARTITION,
                rowKey: 'lease',
                Owner: this.#owner,
                ExpiresAt: new Date(Date.now() + LEASE_SECONDS * 1000),
            };
            this.#leaseEtag = (await this.#table.updateEntity(lease, 'Replace', { etag: this.#leaseEtag })).etag;
        } catch (err) {
            if (statusOf(err) === 412 || statusOf(err) === 404) {
                // The row changed or vanished. Another host taking it is one reason; storage that lost its
                // latest writes (an emulator that crashed and came back with older data) is another, and
                // then the lease is still ours to keep. Look before giving up.
                const owner = await this.#reclaimLease().catch(() => 'unknown' as const);
                if (owner === 'this host' || owner === 'unknown') return; // unknown: look again at the next tick
                this.#leaseEtag = undefined;
                clearInterval(this.#renewTimer);
                this.options.onLeaseLost?.(`the task hub lease was taken by another host`);
            }
            // Other errors (Azurite briefly unreachable): keep the lease and try again at the next tick.
        }
    }

    /** After a failed renewal: takes the lease row back if it is gone or still names this host. */
    async #reclaimLease(): Promise<'this host' | 'another host'> {
        const lease = { partitionKey: LEASE_PARTITION, rowKey: 'lease', Owner: this.#owner, ExpiresAt: new Date(Date.now() + LEASE_SECONDS * 1000) };
        let current: { Owner?: string; etag?: string };
        try {
            current = await this.#table.getEntity<{ Owner?: string }>(LEASE_PARTITION, 'lease');
        } catch (err) {
            if (statusOf(err) !== 404) throw err;
            try {
                this.#leaseEtag = (await this.#table.createEntity(lease)).etag;
                return 'this host';
            } catch (createErr) {
                if (statusOf(createErr) === 409) return 'another host';
                throw createErr;
            }
        }
        if (current.Owner !== this.#owner) return 'another host';
        this.#leaseEtag = (await this.#table.updateEntity(lease, 'Replace', { etag: current.etag ?? '*' })).etag;
        return 'this host';
    }
}

/** A lease is free when it expired, or when its owner is a process on this machine that no longer exists. */
function leaseState(owner: string, expiresAt: Date | undefined): 'free' | 'held here' | 'held elsewhere' {
    if (!expiresAt || expiresAt.getTime() < Date.now()) return 'free';
    const [ownerHost, ownerPid] = owner.split(':');
    if (ownerHost !== hostname()) return 'held elsewhere';
    const pid = Number(ownerPid);
    if (!Number.isInteger(pid) || pid === process.pid) return 'free';
    try {
        process.kill(pid, 0);
        return 'held here';
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'free' : 'held here';
    }
}

/** PartitionKey may not contain / \ # ? or control characters; `$` is escaped too so ids never meet "$lease". */
function partitionKey(instanceId: string): string {
    return instanceId.replace(/[%/\\#?$\u0000-\u001f\u007f-\u009f]/g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

function instanceEntity(record: InstanceRecord): Entity {
    const entity: Entity = {
        partitionKey: partitionKey(record.instanceId),
        rowKey: INSTANCE_ROW,
        InstanceId: record.instanceId,
        Name: record.name,
        Version: record.version,
        ExecutionId: record.executionId,
        RuntimeStatus: record.runtimeStatus,
        CreatedTime: record.createdTime,
        LastUpdatedTime: record.lastUpdatedTime,
        HistoryChunks: record.historyChunks,
        ...writeText('Input', record.input),
        ...writeText('Output', record.output),
        ...writeText('CustomStatus', record.customStatus),
        ...(record.parent ? { Parent: JSON.stringify(record.parent) } : {}),
    };
    return withinSizeLimit(entity);
}

/** Refuses an entity Azure Tables would refuse, with a message that says why. */
function withinSizeLimit(entity: Entity): Entity {
    let chars = 0;
    for (const value of Object.values(entity)) if (typeof value === 'string') chars += value.length;
    if (chars > MAX_ENTITY_CHARS) {
        throw new StorageRejectedError(
            `its state (${chars} characters of input, output, custom status or history in one record) is too large ` +
                'for Azure Table storage; Durable Functions limits payloads too, so pass large data by reference'
        );
    }
    return entity;
}

function recordFrom(entity: StoredEntity): InstanceRecord {
    const parent = typeof entity.Parent === 'string' ? (JSON.parse(entity.Parent) as ParentRef) : undefined;
    return {
        instanceId: String(entity.InstanceId),
        name: String(entity.Name),
        version: String(entity.Version ?? ''),
        executionId: String(entity.ExecutionId),
        runtimeStatus: String(entity.RuntimeStatus) as RuntimeStatus,
        input: readText(entity, 'Input'),
        output: readText(entity, 'Output'),
        customStatus: readText(entity, 'CustomStatus'),
        createdTime: String(entity.CreatedTime),
        lastUpdatedTime: String(entity.LastUpdatedTime),
        historyChunks: Number(entity.HistoryChunks ?? 0),
        ...(parent ? { parent } : {}),
        ...(typeof entity.etag === 'string' ? { etag: entity.etag } : {}),
    };
}

function messageEntity(pk: string, message: InboxMessage): Entity {
    return withinSizeLimit({ partitionKey: pk, rowKey: `m_${message.key}`, ...writeText('Event', JSON.stringify(message.event)) });
}

/** Text as one property, or split over `<name>_0..n` with `<name>_parts` when it is too long for one. */
function writeText(name: string, text: string | null): Record<string, unknown> {
    if (text === null) return {};
    if (text.length <= CHUNK_CHARS) return { [name]: text };
    const parts: Record<string, unknown> = {};
    let count = 0;
    for (let i = 0; i < text.length; i += CHUNK_CHARS) parts[`${name}_${count++}`] = text.slice(i, i + CHUNK_CHARS);
    parts[`${name}_parts`] = count;
    return parts;
}

function readText(entity: Record<string, unknown>, name: string): string | null {
    const whole = entity[name];
    if (typeof whole === 'string') return whole;
    const count = entity[`${name}_parts`];
    if (typeof count !== 'number') return null;
    let text = '';
    for (let i = 0; i < count; i++) text += String(entity[`${name}_${i}`] ?? '');
    return text;
}

function statusOf(err: unknown): number | undefined {
    return err instanceof RestError ? err.statusCode : undefined;
}

function describe(err: unknown): string {
    return err instanceof Error ? err.message.split('\n')[0] ?? err.message : String(err);
}
