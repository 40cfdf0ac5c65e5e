/**
 * When each loaded instance runs its next episode: one at a time per instance, as soon as it has work (a
 * message, an activity's or a timer's result), until the engine stops. A failed episode goes to recovery,
 * which says whether to try again now, after a backoff, or not at all. Messages for an instance are stored
 * first and then handed to its actor, so a crash loses none.
 */
import { TERMINAL_STATUSES } from '../history';
import type { InboxMessage, InstanceRecord } from '../store/taskHubStore';
import { clearTimers, hasWork, type Actor } from './actor';
import { describe } from './engineLog';
import type { ClientOperationResult, EngineComponents } from './engineComponents';
import { startMessage } from './messages';
import { storageRetryDelayMs } from './recovery';

/** How long `stop()` lets in-flight episodes finish before it abandons them. */
const STOP_GRACE_MS = 3000;

export class Scheduler {
    #stopped = false;
    #running = new Set<Promise<void>>();

    constructor(private readonly parts: Pick<EngineComponents, 'store' | 'instances' | 'episodes' | 'recovery' | 'log'>) {}

    get stopped(): boolean {
        return this.#stopped;
    }

    /** Stops taking work; in-flight episodes finish (or are abandoned after a grace period). */
    async stop(): Promise<void> {
        this.#stopped = true;
        for (const actor of this.parts.instances.all()) clearTimers(actor);
        const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
        await Promise.race([Promise.allSettled([...this.#running]), grace]);
    }

    /** Starts a newly created instance (replacing any earlier actor for its id). */
    start(record: InstanceRecord): void {
        const previous = this.parts.instances.get(record.instanceId);
        if (previous) this.parts.instances.retire(previous);
        this.kick(this.parts.instances.adopt(record, [], [startMessage(record)]));
    }

    /**
     * Stores a message for an instance that has not ended (and, given `executionId`, is still that execution)
     * and hands it to the instance's actor, loading it if need be.
     */
    async post(instanceId: string, make: () => InboxMessage, executionId?: string): Promise<ClientOperationResult> {
        const record = await this.parts.instances.current(instanceId);
        if (!record) return 'notFound';
        if (TERMINAL_STATUSES.has(record.runtimeStatus) || (executionId !== undefined && record.executionId !== executionId)) return 'gone';
        const message = make();
        await this.parts.store.addMessage(instanceId, message);
        this.accept(this.parts.instances.get(instanceId) ?? (await this.parts.instances.load(record)), message);
        return 'accepted';
    }

    /** Adds a stored message to a loaded instance (a fresh load may already hold it) and runs it. */
    accept(actor: Actor, message: InboxMessage): void {
        if (!actor.inbox.some((m) => m.key === message.key)) actor.inbox.push(message);
        this.kick(actor);
    }

    /** Runs the instance's episodes unless it is running them already or has nothing to do. */
    kick(actor: Actor): void {
        if (actor.busy || actor.retired || this.#stopped || !hasWork(actor)) return;
        actor.busy = true;
        const run = this.#drain(actor)
            .catch((err: unknown) => this.parts.log('error', `Instance ${actor.record.instanceId} stopped: ${describe(err)}`))
            .finally(() => {
                actor.busy = false;
                this.#running.delete(run);
                if (TERMINAL_STATUSES.has(actor.record.runtimeStatus) && actor.inbox.length === 0) {
                    this.parts.instances.forget(actor);
                } else {
                    this.kick(actor);
                }
            });
        this.#running.add(run);
    }

    async #drain(actor: Actor): Promise<void> {
        // Storage errors (Azurite restarting, a network blip) are retried with backoff; nothing is lost meanwhile,
        // because the episode's inputs (messages, activity results) stay in memory until a commit succeeds.
        let failures = 0;
        while (hasWork(actor) && !actor.retired && !this.#stopped) {
            try {
                await this.parts.episodes.run(actor);
                failures = 0;
            } catch (err) {
                const next = await this.parts.recovery.afterFailedEpisode(actor, err);
                if (next === 'stop') return;
                if (next === 'again') continue;
                const delay = storageRetryDelayMs(failures++);
                this.parts.log(
                    'error',
                    `Episode for ${actor.record.instanceId} failed; retrying: ${describe(err)} (next attempt in ${delay} ms)`,
                    actor.record.name
                );
                await new Promise((resolve) => setTimeout(resolve, delay));
            }
        }
    }
}
