import type { InstancePage, InstanceQuery, WorkflowClient } from '../../../src/workflow/workflowClient';
import type { DurableStatusLike } from '../../../src/workflow/durableStatus';
import { notFoundOnRead, notFoundOnTerminate, pageOfInstances, startOnRunningId } from './fakes';

/** Statuses of an instance that has not ended: terminate ends it, purge refuses it. */
const RUNNING = ['Running', 'Pending', 'ContinuedAsNew', 'Suspended'];

/**
 * A durable backend that keeps instances in a map: a started instance runs until a test changes it
 * (`set`), terminate ends it (suspended or not) with the reason as its output, purge deletes an ended one
 * and refuses one that has not ended, and list queries answer as the real client does (ISO times,
 * instanceId on each item).
 *
 * Starts behave as on the real Durable extension's Azure Storage provider: the start first reads the
 * instance (a running one: HTTP 409), then queues its message and writes the instance row only if no
 * other start wrote it in between (else the write fails and is ignored). So concurrent starts on a new id
 * are all accepted and the first one's input is kept; a start on an ended id replaces it.
 */
export class MemoryBackend implements WorkflowClient {
    readonly instances = new Map<string, DurableStatusLike>();
    readonly calls: Array<{ method: string; args: unknown[] }> = [];
    /** Wall time of the next start, in ms. */
    now = Date.parse('2026-11-29T12:00:00Z');

    async startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string> {
        this.calls.push({ method: 'startNew', args: [orchestratorName, options] });
        const seen = this.instances.get(options.instanceId);
        if (seen !== undefined && RUNNING.includes(seen.runtimeStatus)) throw startOnRunningId();
        // The start message is queued between the read and the row's (conditional) write.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.instances.get(options.instanceId) !== seen) return options.instanceId;
        const created = new Date(this.now);
        this.instances.set(options.instanceId, {
            instanceId: options.instanceId,
            // The orchestrator's name, as both backends report it: which job the workflow is.
            name: orchestratorName,
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
        if (!RUNNING.includes(found.runtimeStatus)) return;
        const apply = () => {
            const now = this.instances.get(instanceId);
            if (now !== undefined && RUNNING.includes(now.runtimeStatus)) this.set(instanceId, { runtimeStatus: 'Terminated', output: reason });
        };
        if (this.queueTerminates) this.queuedTerminates.push(apply);
        else apply();
    }

    /**
     * When true, terminate only queues its message, as the real extension does (it applies it when it next
     * polls the instance's control queue): the instance runs on until `applyQueuedTerminates()`.
     */
    queueTerminates = false;
    private queuedTerminates: Array<() => void> = [];

    applyQueuedTerminates(): void {
        for (const apply of this.queuedTerminates.splice(0)) apply();
    }

    async listInstances(query: InstanceQuery): Promise<InstancePage> {
        this.calls.push({ method: 'listInstances', args: [query] });
        const page = pageOfInstances([...this.instances.values()], query);
        const iso = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString() : time);
        return { ...page, instances: page.instances.map((i) => ({ ...i, createdTime: iso(i.createdTime), lastUpdatedTime: iso(i.lastUpdatedTime) })) };
    }

    async purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }> {
        this.calls.push({ method: 'purgeInstanceHistory', args: [instanceId] });
        const found = this.instances.get(instanceId);
        // The real extension refuses (412) a purge of an instance that has not ended; a test that asks for one has found a bug.
        if (found === undefined) return { instancesDeleted: 0 };
        if (RUNNING.includes(found.runtimeStatus)) {
            this.purgedWhileRunning.push(instanceId);
            return { instancesDeleted: 0 };
        }
        this.instances.delete(instanceId);
        return { instancesDeleted: 1 };
    }

    /** Ids whose purge was asked while they still ran (the real extension refuses it with 412). */
    readonly purgedWhileRunning: string[] = [];

    /** Puts a running MineChain instance (4 blocks at difficulty 12, created now) with `change` in; answers its id. */
    seed(instanceId: string, change: Partial<DurableStatusLike> = {}): string {
        this.instances.set(instanceId, {
            instanceId,
            runtimeStatus: 'Running',
            input: { difficulty: 12, blocks: 4 },
            output: null,
            customStatus: null,
            createdTime: new Date(this.now),
            lastUpdatedTime: new Date(this.now),
            ...change,
        });
        return instanceId;
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
