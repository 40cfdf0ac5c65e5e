import type { InstancePage, InstanceQuery, InstanceRecord } from './taskHubStore';

/** The extension's list filter: created-time window (inclusive), runtime statuses, instance id prefix. */
export function matchesQuery(record: InstanceRecord, query: InstanceQuery): boolean {
    const created = Date.parse(record.createdTime);
    if (query.createdTimeFrom && created < Date.parse(query.createdTimeFrom)) return false;
    if (query.createdTimeTo && created > Date.parse(query.createdTimeTo)) return false;
    if (query.runtimeStatus?.length && !query.runtimeStatus.includes(record.runtimeStatus)) return false;
    if (query.instanceIdPrefix && !record.instanceId.startsWith(query.instanceIdPrefix)) return false;
    return true;
}

/**
 * One page of matches in a stable order (creation time, then id). The continuation token is the offset
 * of the next page; no token means this was the last page, which is what `getStatusAll` loops on.
 */
export function pageOf(matches: InstanceRecord[], query: InstanceQuery): InstancePage {
    const sorted = [...matches].sort(
        (a, b) => a.createdTime.localeCompare(b.createdTime) || a.instanceId.localeCompare(b.instanceId)
    );
    const offset = query.continuationToken ? decodeOffset(query.continuationToken) : 0;
    const size = query.top && query.top > 0 ? query.top : sorted.length;
    const instances = sorted.slice(offset, offset + size);
    const next = offset + instances.length;
    return next < sorted.length ? { instances, continuationToken: Buffer.from(String(next)).toString('base64') } : { instances };
}

function decodeOffset(token: string): number {
    const offset = Number(Buffer.from(token, 'base64').toString('utf8'));
    return Number.isInteger(offset) && offset >= 0 ? offset : 0;
}
