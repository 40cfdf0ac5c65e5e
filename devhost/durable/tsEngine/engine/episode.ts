/**
 * One episode of one instance, carried out: take what waits for it, ask the decision (decision.ts), run the
 * orchestrator when the decision needs its answer, commit the result atomically, then act on it (cancel and
 * start work, wake waiters, tell a parent). Whatever fails before the commit leaves the actor as it was.
 */
import { TERMINAL_STATUSES, toJsonText, type HistoryEvent } from '../history';
import type { InboxMessage, InstanceRecord } from '../store/taskHubStore';
import { cancelTimer, clearTimers, type Actor } from './actor';
import { beginEpisode, discardMessages, endEpisode, takeMessages, type Decision } from './decision';
import type { EngineComponents } from './engineComponents';
import { instanceClock, newId } from './instanceRecord';
import { orchestratorTrigger, startMessage } from './messages';

export class EpisodeRunner {
    constructor(private readonly parts: Pick<EngineComponents, 'store' | 'invoker' | 'catalog' | 'executor' | 'finishWaiters' | 'log'>) {}

    async run(actor: Actor): Promise<void> {
        const record = actor.record;
        actor.completions = actor.completions.filter((c) => c.executionId === record.executionId);
        if (TERMINAL_STATUSES.has(record.runtimeStatus)) {
            actor.completions = [];
            await this.apply(actor, discardMessages(record, actor.inbox));
            return;
        }
        const now = instanceClock(actor);
        const step = takeMessages(record.runtimeStatus, actor.inbox);
        const completions = step.status === 'Suspended' ? [] : actor.completions.splice(0);
        try {
            const state = { record, history: actor.history };
            const start = beginEpisode(state, now, step, completions);
            if (start.kind !== 'runOrchestrator') return await this.apply(actor, start);
            const outcome = await this.parts.invoker.invoke({
                functionId: record.name,
                inputData: this.parts.catalog.inputs(record.name, orchestratorTrigger(record, start.history)),
                triggerMetadata: {},
            });
            const decision = endEpisode(state, now, step, { ...start, outcome }, (name) => this.parts.catalog.kind(name));
            await this.apply(actor, decision);
        } catch (err) {
            // Nothing was committed: the in-memory results must survive for the next attempt.
            actor.completions.unshift(...completions);
            throw err;
        }
    }

    /** Commits a decision and acts on it; nothing follows when the actor was retired meanwhile. */
    async apply(actor: Actor, decision: Decision): Promise<void> {
        if (decision.kind === 'continueAsNew') return this.#continueAsNew(actor, decision);
        if (!(await this.#commit(actor, decision.record, decision.events, decision.taken))) return;
        if (decision.kind === 'continue') {
            for (const id of decision.canceledTimers) cancelTimer(actor, id);
            for (const work of decision.newWork) this.parts.executor.dispatch(actor, work);
            return;
        }
        const { status, output } = decision;
        clearTimers(actor);
        this.parts.finishWaiters.wake(actor.record.instanceId);
        this.parts.log(
            status === 'Completed' ? 'information' : 'warning',
            `Orchestration ${actor.record.instanceId} ${status.toLowerCase()}${status === 'Completed' ? '' : `: ${String(output)}`}`,
            actor.record.name
        );
        if (actor.record.parent) await this.parts.executor.notifyParent(actor.record, actor.record.parent);
    }

    async #continueAsNew(actor: Actor, decision: Extract<Decision, { kind: 'continueAsNew' }>): Promise<void> {
        const { taken } = decision;
        const next: InstanceRecord = {
            ...actor.record,
            executionId: newId(),
            runtimeStatus: 'ContinuedAsNew',
            input: toJsonText(decision.input),
            output: null,
            customStatus: decision.customStatus,
            lastUpdatedTime: decision.now,
            historyChunks: 0,
        };
        const start = startMessage(next);
        const committed = await this.parts.store.commitEpisode({
            record: next,
            newEvents: [],
            consumed: taken.map((m) => m.key),
            added: [start],
            newExecution: true,
        });
        if (actor.retired) return;
        clearTimers(actor);
        actor.record = committed;
        actor.history = [];
        actor.completions = [];
        actor.inbox = [start, ...actor.inbox.filter((m) => !taken.includes(m))];
    }

    /** Commits an episode and updates the actor; false when the actor was retired meanwhile. */
    async #commit(actor: Actor, record: InstanceRecord, newEvents: HistoryEvent[], taken: readonly InboxMessage[]): Promise<boolean> {
        const next = { ...record, historyChunks: record.historyChunks + (newEvents.length > 0 ? 1 : 0) };
        const played = newEvents.map((e) => ({ ...e, IsPlayed: true }));
        const committed = await this.parts.store.commitEpisode({
            record: next,
            newEvents: played,
            consumed: taken.map((m) => m.key),
            added: [],
            newExecution: false,
        });
        if (actor.retired) return false;
        actor.record = committed;
        actor.history.push(...played);
        actor.inbox = actor.inbox.filter((m) => !taken.includes(m));
        return true;
    }
}
