import type { WorkflowClient } from '../../../src/workflow/client';
import type { DurableStatusLike } from '../../../src/workflow/status';
import { notFoundOnRead, notFoundOnTerminate } from './fakes';

/** Statuses of an instance that has not ended: terminate ends it, purge refuses it. */
const UNFINISHED = ['Pending', 'Running', 'Suspended'];

/**
 * A durable backend that keeps instances in a map, for the task store: a started instance runs until a
 * test changes it (`set`), terminate ends it (suspended or not) at once with the reason as its output, purge
 * deletes an ended one, and list queries answer as the real client does (ISO times, instanceId on each item).
 */
export class MemoryBackend implements WorkflowClient {
    readonly instances = new Map<string, DurableStatusLike>();
    readonly calls: Array<{ method: string; args: unknown[] }> = [];
    /** Wall time of the next start, in ms. */
    now = Date.parse('2026-11-29T12:00:00Z');

    async startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string> {
        this.calls.push({ method: 'startNew', args: [orchestratorName, options] });
        if (this.instances.has(options.instanceId)) {
            throw new Error('The operation failed with an unexpected status code: 409. Details: already exists');
        }
        const created = new Date(this.now);
        this.instances.set(options.instanceId, {
            instanceId: options.instanceId,
            runtimeStatus: 'Running',
            input: options.input,
            output: null,
            customStatus: null,
            createdTime: created,
            lastUpdatedTime: created,
        });
        return options.instanceId;
    }

    async getStatus(instanceId: string): Promise<DurableStatusLike> {
        this.calls.push({ method: 'getStatus', args: [instanceId] });
        const found = this.instances.get(instanceId);
        if (found === undefined) throw notFoundOnRead(instanceId);
        return { ...found };
    }

    async terminate(instanceId: string, reason: string): Promise<void> {
        this.calls.push({ method: 'terminate', args: [instanceId, reason] });
        const found = this.instances.get(instanceId);
        if (found === undefined) throw notFoundOnTerminate(instanceId);
        // As the extension does: a suspended instance is terminated too; an ended one stays as it ended.
        if (UNFINISHED.includes(found.runtimeStatus)) {
            this.set(instanceId, { runtimeStatus: 'Terminated', output: decodeURIComponent(reason) });
        }
    }

    async getStatusBy(filter: { createdTimeFrom?: Date }): Promise<DurableStatusLike[]> {
        this.calls.push({ method: 'getStatusBy', args: [filter] });
        const from = filter.createdTimeFrom?.getTime() ?? 0;
        return [...this.instances.values()]
            .filter((instance) => (instance.createdTime as Date).getTime() >= from)
            .map((instance) => ({
                ...instance,
                createdTime: (instance.createdTime as Date).toISOString(),
                lastUpdatedTime: (instance.lastUpdatedTime as Date).toISOString(),
            }));
    }

    async purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }> {
        this.calls.push({ method: 'purgeInstanceHistory', args: [instanceId] });
        const found = this.instances.get(instanceId);
        if (found === undefined || UNFINISHED.includes(found.runtimeStatus)) return { instancesDeleted: 0 };
        this.instances.delete(instanceId);
        return { instancesDeleted: 1 };
    }

    /** Changes an instance as the orchestration would. */
    set(instanceId: string, change: Partial<DurableStatusLike>): void {
        const found = this.instances.get(instanceId);
        if (found === undefined) throw new Error(`no instance ${instanceId}`);
        this.instances.set(instanceId, { ...found, lastUpdatedTime: new Date(this.now), ...change });
    }

    count(method: string): number {
        return this.calls.filter((c) => c.method === method).length;
    }
}
