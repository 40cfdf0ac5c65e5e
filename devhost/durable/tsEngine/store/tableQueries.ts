/**
 * The reads the table store makes: the rows of one instance's partition by RowKey prefix, and the status
 * rows of every instance, filtered and paged as the management API's list queries ask (queryInstances.ts).
 */
import { odata, type TableClient } from '@azure/data-tables';
import { INSTANCE_ROW, recordFrom, type Entity, type StoredEntity } from './tableCodec';
import { matchesQuery, pageOf } from './queryInstances';
import type { InstancePage, InstanceQuery, InstanceRecord } from './taskHubStore';

/** Rows of one partition whose RowKey starts with `prefix`, in RowKey order. */
export async function partitionRows(table: TableClient, pk: string, prefix: string): Promise<Entity[]> {
    const filter = prefix
        ? odata`PartitionKey eq ${pk} and RowKey ge ${prefix} and RowKey lt ${prefix + '\uffff'}`
        : odata`PartitionKey eq ${pk}`;
    const rows: Entity[] = [];
    for await (const entity of table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
        rows.push(entity as Entity);
    }
    return rows.sort((a, b) => (a.rowKey < b.rowKey ? -1 : a.rowKey > b.rowKey ? 1 : 0));
}

/** The instances whose status rows match the query, one page of them. */
export async function queryStatusRows(table: TableClient, query: InstanceQuery): Promise<InstancePage> {
    const matching: InstanceRecord[] = [];
    for await (const entity of table.listEntities<Record<string, unknown>>({
        queryOptions: { filter: odata`RowKey eq ${INSTANCE_ROW}` },
    })) {
        const record = recordFrom(entity as StoredEntity);
        if (matchesQuery(record, query)) matching.push(record);
    }
    return pageOf(matching, query);
}
