/**
 * The work an episode schedules, done outside episodes: activities (in this process, at most
 * host.json's maxConcurrentActivityFunctions at once, as the extension), durable timers, sub-orchestrations. Each reports back as a completion
 * or a message, which the instance's next episode commits. Retries are the orchestrator's: replay turns a
 * failed attempt with retry options into a timer and a new attempt (replay.ts).
 */
import { availableParallelism } from 'node:os';
import { EventType, TERMINAL_STATUSES, event, toJsonText, type HistoryEvent } from '../history';
import type { InboxMessage, InstanceRecord, ParentRef } from '../store/taskHubStore';
import { cancelTimer, type Actor } from './actor';
import { describe } from './engineLog';
import type { EngineComponents } from './engineComponents';
import { newRecord } from './instanceRecord';
import { activityInput, fromTypedData } from '../../workerData';
import { sameParent, startMessage } from './messages';
import type { NewWork } from './replay';
import { Semaphore } from './semaphore';

/** maxConcurrentActivityFunctions defaults to 10 per core in the extension, when host.json does not set it. */
export const DEFAULT_MAX_CONCURRENT_ACTIVITIES = 10 * availableParallelism();

export class Executor {
    readonly #activitySlots: Semaphore;

    constructor(
        private readonly parts: Pick<EngineComponents, 'store' | 'invoker' | 'catalog' | 'instances' | 'scheduler' | 'log'>,
        maxConcurrentActivities: number = DEFAULT_MAX_CONCURRENT_ACTIVITIES
    ) {
        this.#activitySlots = new Semaphore(maxConcurrentActivities);
    }

    dispatch(actor: Actor, work: NewWork): void {
        const executionId = actor.record.executionId;
        switch (work.kind) {
            case 'activity':
                void this.runActivity(actor, executionId, work.id, work.name, work.input);
                return;
            case 'timer':
                if (!work.canceled) this.armTimer(actor, executionId, work.id, work.fireAt);
                return;
            case 'subOrchestration':
                void this.startChild(actor.record, work.id, work.name, work.instanceId, work.input, work.version ?? '');
                return;
        }
    }

    async runActivity(actor: Actor, executionId: string, id: number, name: string, input: unknown): Promise<void> {
        await this.#activitySlots.acquire();
        let completion: HistoryEvent;
        try {
            if (actor.retired || this.parts.scheduler.stopped) return;
            const outcome = await this.parts.invoker.invoke({
                functionId: name,
                inputData: this.parts.catalog.inputs(name, activityInput(input)),
                triggerMetadata: { instanceId: { string: actor.record.instanceId } },
            });
            const now = new Date().toISOString();
            completion = outcome.ok
                ? event(EventType.TaskCompleted, now, { TaskScheduledId: id, Result: toJsonText(fromTypedData(outcome.response.returnValue)) })
                : event(EventType.TaskFailed, now, {
                      TaskScheduledId: id,
                      // The extension takes the message from the host's "Exception: <message>" line, space and all.
                      Reason: `Activity function '${name}' failed:  ${outcome.error.message ?? ''}`,
                      Details: JSON.stringify({ Message: outcome.error.message ?? '', StackTrace: outcome.error.stackTrace ?? null }),
                  });
        } finally {
            this.#activitySlots.release();
        }
        this.#complete(actor, executionId, completion);
    }

    armTimer(actor: Actor, executionId: string, id: number, fireAt: string): void {
        cancelTimer(actor, id);
        // setTimeout takes at most 2^31-1 ms (~24.8 days); a longer timer re-arms itself.
        const delay = Math.min(Math.max(0, Date.parse(fireAt) - Date.now()), 2 ** 31 - 1);
        const handle = setTimeout(() => {
            actor.timers.delete(id);
            if (Date.parse(fireAt) > Date.now()) return this.armTimer(actor, executionId, id, fireAt);
            this.#complete(actor, executionId, event(EventType.TimerFired, new Date().toISOString(), { TimerId: id, FireAt: fireAt }));
        }, delay);
        handle.unref();
        actor.timers.set(id, handle);
    }

    async startChild(parent: InstanceRecord, taskId: number, name: string, instanceId: string, input: unknown, version: string): Promise<void> {
        const ref: ParentRef = { instanceId: parent.instanceId, executionId: parent.executionId, taskScheduledId: taskId, name: parent.name };
        const record = { ...newRecord(instanceId, name, version, input), parent: ref };
        try {
            const outcome = await this.parts.store.createInstance(
                record,
                startMessage(record),
                (existing) => TERMINAL_STATUSES.has(existing.runtimeStatus) && !sameParent(existing.parent, ref)
            );
            if ('created' in outcome) {
                this.parts.scheduler.start(outcome.created);
            } else if (sameParent(outcome.existing.parent, ref)) {
                // Created before a crash: if it already finished, make sure the parent heard about it.
                if (TERMINAL_STATUSES.has(outcome.existing.runtimeStatus)) await this.notifyParent(outcome.existing, ref);
            } else {
                await this.#deliver(ref, {
                    key: subOrchestrationKey(ref),
                    event: event(EventType.SubOrchestrationInstanceFailed, new Date().toISOString(), {
                        TaskScheduledId: taskId,
                        Reason: `An orchestration with instance ID '${instanceId}' already exists.`,
                        Details: '',
                    }),
                });
            }
        } catch (err) {
            this.parts.log('error', `Could not start sub-orchestration ${instanceId}: ${describe(err)}`, name);
        }
    }

    /** A sub-orchestration ended: its parent gets the result, or the failure, as a message. */
    async notifyParent(child: InstanceRecord, parent: ParentRef): Promise<void> {
        const now = new Date().toISOString();
        const completion =
            child.runtimeStatus === 'Completed'
                ? event(EventType.SubOrchestrationInstanceCompleted, now, { TaskScheduledId: parent.taskScheduledId, Result: child.output })
                : event(EventType.SubOrchestrationInstanceFailed, now, {
                      TaskScheduledId: parent.taskScheduledId,
                      Reason:
                          child.runtimeStatus === 'Failed'
                              ? String(JSON.parse(child.output ?? '""'))
                              : `Sub-orchestration '${child.instanceId}' was ${child.runtimeStatus.toLowerCase()}: ${String(JSON.parse(child.output ?? '""'))}`,
                      Details: '',
                  });
        await this.#deliver(parent, { key: subOrchestrationKey(parent), event: completion });
    }

    /** A completion counts only for the execution that scheduled it, and only while it runs. */
    #complete(actor: Actor, executionId: string, completion: HistoryEvent): void {
        if (actor.retired || actor.record.executionId !== executionId || TERMINAL_STATUSES.has(actor.record.runtimeStatus)) return;
        actor.completions.push({ executionId, event: completion });
        this.parts.scheduler.kick(actor);
    }

    async #deliver(parent: ParentRef, message: InboxMessage): Promise<void> {
        await this.parts.scheduler.post(parent.instanceId, () => message, parent.executionId);
    }
}

/** One key per sub-orchestration call, so its result is delivered once however often it is reported. */
function subOrchestrationKey(parent: ParentRef): string {
    return `sub_${parent.executionId}_${parent.taskScheduledId}`;
}
