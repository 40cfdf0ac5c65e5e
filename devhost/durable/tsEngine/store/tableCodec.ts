/**
 * How task hub state is laid out in Azure Tables, one partition per instance:
 *   RowKey "instance"                 the status row (what status queries read)
 *   RowKey "h_<executionId>_<n>"      the history of episode n of the current execution
 *   RowKey "m_<key>"                  a message waiting for the next episode
 * and how records, history chunks and messages become entities and back, within Azure Tables' limits
 * on a property's and an entity's size.
 */
import type { TableEntity } from '@azure/data-tables';
import type { HistoryEvent, RuntimeStatus } from '../history';
import { StorageRejectedError, type InboxMessage, type InstanceRecord, type ParentRef } from './taskHubStore';

export const INSTANCE_ROW = 'instance';
/** Azure Tables caps a string property at 64 KiB (32K UTF-16 characters); longer text is split. */
const CHUNK_CHARS = 30_000;
/** ... and an entity at 1 MiB: strings are UTF-16, so about 500K characters, less room for the rest. */
const MAX_ENTITY_CHARS = 450_000;

export type Entity = TableEntity<Record<string, unknown>>;
/** What reads return: the entity plus its ETag. */
export type StoredEntity = Entity & { etag?: string };

/** PartitionKey may not contain / \ # ? or control characters; `$` is escaped too so ids never meet "$lease". */
export function partitionKey(instanceId: string): string {
    return instanceId.replace(/[%/\\#?$\u0000-\u001f\u007f-\u009f]/g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

/** The RowKey prefix of one execution's history chunks. */
export function historyPrefix(executionId: string): string {
    return `h_${executionId}_`;
}

export function instanceEntity(record: InstanceRecord): Entity {
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

export function recordFrom(entity: StoredEntity): InstanceRecord {
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

/** History chunk `chunk` (0-based) of an execution. */
export function historyEntity(pk: string, executionId: string, chunk: number, events: readonly HistoryEvent[]): Entity {
    const rowKey = `${historyPrefix(executionId)}${String(chunk).padStart(6, '0')}`;
    return withinSizeLimit({ partitionKey: pk, rowKey, ...writeText('Events', JSON.stringify(events)) });
}

export function historyFrom(row: Entity): HistoryEvent[] {
    return JSON.parse(readText(row, 'Events') ?? '[]') as HistoryEvent[];
}

export function messageEntity(pk: string, message: InboxMessage): Entity {
    return withinSizeLimit({ partitionKey: pk, rowKey: `m_${message.key}`, ...writeText('Event', JSON.stringify(message.event)) });
}

export function messageFrom(row: Entity): InboxMessage {
    return { key: row.rowKey.slice(2), event: JSON.parse(readText(row, 'Event') ?? 'null') as HistoryEvent };
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
