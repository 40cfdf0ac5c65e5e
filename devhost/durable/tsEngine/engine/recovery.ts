/**
 * Recovery: after a crash, `recover` reloads an unfinished instance and redoes what its history left open
 * (activities run again, at least once; timers are re-armed; sub-orchestrations are re-checked). After a
 * failed episode, `afterFailedEpisode` says what follows: a conflicting write reloads the instance from the
 * store, an instance the store lost is written back from memory, data the store refuses fails the
 * orchestration (as in the extension), and anything else is retried after a backoff.
 */
import { EventType, TERMINAL_STATUSES, completedId, isScheduling } from '../history';
import { ConcurrencyError, InstanceMissingError, StorageRejectedError, type InstanceRecord } from '../store/taskHubStore';
import type { Actor } from './actor';
import { finishDecision } from './decision';
import { describe } from './engineLog';
import type { AfterFailure, EngineComponents } from './engineComponents';
import { instanceClock } from './instanceRecord';
import { parseJson } from './messages';

const RETRY_AFTER_STORAGE_ERROR_MS = 1000;
/** Consecutive failed episodes back off from RETRY_AFTER_STORAGE_ERROR_MS, doubling, to this. */
const MAX_RETRY_AFTER_STORAGE_ERROR_MS = 8000;

/** The wait before retry `attempt` (0-based): an outage of minutes is not hammered every second. */
export function storageRetryDelayMs(attempt: number): number {
    return Math.min(RETRY_AFTER_STORAGE_ERROR_MS * 2 ** Math.min(attempt, 10), MAX_RETRY_AFTER_STORAGE_ERROR_MS);
}

export class Recovery {
    constructor(private readonly parts: Pick<EngineComponents, 'store' | 'instances' | 'scheduler' | 'episodes' | 'executor' | 'log'>) {}

    /** Loads an instance and redoes what its history left open, as after a crash. */
    async recover(record: InstanceRecord): Promise<void> {
        const actor = await this.parts.instances.load(record);
        this.#resumeOutstandingWork(actor);
        this.parts.scheduler.kick(actor);
    }

    async afterFailedEpisode(actor: Actor, err: unknown): Promise<AfterFailure> {
        if (err instanceof ConcurrencyError) {
            // The stored instance is not what this actor holds (a purge, a restart, or a commit that was
            // applied although its answer was lost): start again from what is stored.
            this.parts.instances.retire(actor);
            await this.#reload(actor.record.instanceId);
            return 'stop';
        }
        if (err instanceof StorageRejectedError) {
            await this.#failForStorage(actor, err);
            return 'stop';
        }
        if (err instanceof InstanceMissingError && (await this.#restore(actor))) return 'again';
        return 'backoff';
    }

    /**
     * The store lost an instance this host is running (Azurite killed before it saved): memory holds its
     * committed history and waiting messages, so write them back and carry on. False if that failed too.
     */
    async #restore(actor: Actor): Promise<boolean> {
        try {
            const restored = await this.parts.store.restoreInstance(actor.record, actor.history, actor.inbox);
            if (actor.retired) return false;
            actor.record = restored;
            this.parts.log('warning', `Instance ${actor.record.instanceId} was missing from storage; wrote it back from memory`, actor.record.name);
            return true;
        } catch (err) {
            this.parts.log('error', `Writing instance ${actor.record.instanceId} back to storage failed: ${describe(err)}`, actor.record.name);
            return false;
        }
    }

    async #reload(instanceId: string): Promise<void> {
        try {
            const fresh = await this.parts.store.getInstance(instanceId);
            if (fresh && !TERMINAL_STATUSES.has(fresh.runtimeStatus)) await this.recover(fresh);
        } catch (err) {
            this.parts.log('error', `Reloading ${instanceId} failed; retrying: ${describe(err)}`);
            setTimeout(() => void this.#reload(instanceId), RETRY_AFTER_STORAGE_ERROR_MS).unref();
        }
    }

    /** The store refused the episode's data for good (too large, say): the orchestration fails, as in the extension. */
    async #failForStorage(actor: Actor, err: StorageRejectedError): Promise<void> {
        this.parts.log('error', `Instance ${actor.record.instanceId} cannot be stored: ${err.message}`, actor.record.name);
        actor.completions = [];
        try {
            const reason = `Orchestrator function '${actor.record.name}' failed: ${err.message}`;
            await this.parts.episodes.apply(actor, finishDecision(actor.record, instanceClock(actor), [], 'Failed', reason, [], null));
        } catch (second) {
            this.parts.log('error', `Giving up on instance ${actor.record.instanceId}: ${describe(second)}`, actor.record.name);
            this.parts.instances.retire(actor);
        }
    }

    /** After a restart: whatever the history scheduled and never saw finish is started again. */
    #resumeOutstandingWork(actor: Actor): void {
        const { executor } = this.parts;
        const done = new Set<number>();
        for (const e of actor.history) {
            const id = completedId(e);
            if (id !== undefined) done.add(id);
        }
        for (const e of actor.history) {
            if (!isScheduling(e) || done.has(e.EventId)) continue;
            if (e.EventType === EventType.TaskScheduled) {
                void executor.runActivity(actor, actor.record.executionId, e.EventId, e.Name ?? '', parseJson(e.Input));
            } else if (e.EventType === EventType.TimerCreated) {
                executor.armTimer(actor, actor.record.executionId, e.EventId, e.FireAt ?? new Date().toISOString());
            } else {
                void executor.startChild(actor.record, e.EventId, e.Name ?? '', e.InstanceId ?? '', parseJson(e.Input), e.Version ?? '');
            }
        }
    }
}
