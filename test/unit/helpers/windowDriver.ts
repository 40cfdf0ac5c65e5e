import assert from 'node:assert/strict';
import type { OrchestrationContext } from 'durable-functions';

/**
 * A small model of durable-functions' task executor for orchestrator generators that keep work in flight:
 * activities, a timer due now, Task.any. It holds the code to the rule the real SDK needs (a yielded
 * Task.any must hold only tasks never yielded before, else they are scheduled twice: azure-functions-durable-js#574)
 * and lets a test choose which activity in flight answers next, to try every order.
 */

export interface FakeTask {
    kind: 'activity' | 'timer' | 'any';
    name?: string;
    input?: unknown;
    children?: FakeTask[];
    scheduled: boolean;
    isCompleted: boolean;
    isFaulted: boolean;
    result?: unknown;
    /** A timer's due time, in ms after the orchestration's clock when it was created. */
    dueInMs?: number;
}

/** Which activity in flight answers next, given them in the order they were dispatched. */
export type PickNext = (inFlight: readonly FakeTask[]) => FakeTask;

export const lowestFirst: PickNext = (inFlight) => inFlight[0] as FakeTask;
export const highestFirst: PickNext = (inFlight) => inFlight.at(-1) as FakeTask;

export interface DriveOptions {
    input: unknown;
    /** The activity's answer; a thrown error fails the task. */
    answer: (name: string, input: unknown) => unknown;
    pick?: PickNext;
    /** Told of every timer scheduled, by how long after its creation it is due (seen even when the run throws). */
    onTimer?: (dueInMs: number) => void;
}

export interface DriveRecord {
    output: unknown;
    /** Activity inputs in the order they were dispatched. */
    dispatched: unknown[];
    /** Activity inputs in the order they answered. */
    answered: unknown[];
    /** What the generator yielded, in order: 'any(n)' (n new activities, +timer), or 'task' for one alone. */
    yields: string[];
    customStatuses: unknown[];
    maxInFlight: number;
    /** The activity inputs in flight each time one was dispatched. */
    inFlightSnapshots: unknown[][];
    /** Activities dispatched and never answered when the generator ended. */
    leftRunning: unknown[];
    /** Every timer scheduled, by how long after its creation it was due. */
    timerDelays: number[];
}

export function fakeWindowContext(input: unknown) {
    const customStatuses: unknown[] = [];
    const task = (fields: Partial<FakeTask> & Pick<FakeTask, 'kind'>): FakeTask => ({ scheduled: false, isCompleted: false, isFaulted: false, ...fields });
    const df = {
        currentUtcDateTime: new Date('2026-01-01T00:00:00.000Z'),
        getInput: () => input,
        setCustomStatus: (status: unknown) => customStatuses.push(status),
        callActivity: (name: string, activityInput: unknown) => task({ kind: 'activity', name, input: activityInput }),
        createTimer: (at: Date) => task({ kind: 'timer', dueInMs: at.getTime() - df.currentUtcDateTime.getTime() }),
        Task: { any: (children: FakeTask[]) => task({ kind: 'any', children }) },
    };
    return { context: { df } as unknown as OrchestrationContext, df, customStatuses };
}

/** Runs the orchestrator to its end, answering activities in the order `pick` chooses. Throws what it throws. */
export function drive(orchestrator: (context: OrchestrationContext) => Generator<unknown, unknown, unknown>, options: DriveOptions): DriveRecord {
    const pick = options.pick ?? lowestFirst;
    const { context, df, customStatuses } = fakeWindowContext(options.input);
    const record: DriveRecord = { output: undefined, dispatched: [], answered: [], yields: [], customStatuses, maxInFlight: 0, inFlightSnapshots: [], leftRunning: [], timerDelays: [] };
    const inFlight: FakeTask[] = [];
    const timers: FakeTask[] = [];
    const settle = (t: FakeTask, failed: boolean, result: unknown) => {
        t.isCompleted = !failed;
        t.isFaulted = failed;
        t.result = result;
    };
    const schedule = (t: FakeTask) => {
        assert.equal(t.scheduled, false, 'a task was scheduled twice (a Task.any over a task yielded before)');
        t.scheduled = true;
        if (t.kind === 'activity') {
            inFlight.push(t);
            record.dispatched.push(t.input);
            record.maxInFlight = Math.max(record.maxInFlight, inFlight.length);
            record.inFlightSnapshots.push(inFlight.map((f) => f.input));
        } else if (t.kind === 'timer') {
            timers.push(t);
            record.timerDelays.push(t.dueInMs ?? 0);
            options.onTimer?.(t.dueInMs ?? 0);
        }
    };
    const isDone = (t: FakeTask): boolean =>
        t.kind === 'any' ? (t.children ?? []).some((child) => child.isCompleted || child.isFaulted) : t.isCompleted || t.isFaulted;
    /** One event: a timer due now fires first, as it is due before any activity can answer. */
    const step = () => {
        const timer = timers.shift();
        if (timer !== undefined) return settle(timer, false, undefined);
        assert.ok(inFlight.length > 0, 'the orchestrator waits for a task that nothing will complete');
        const next = pick(inFlight);
        inFlight.splice(inFlight.indexOf(next), 1);
        record.answered.push(next.input);
        try {
            settle(next, false, options.answer(next.name ?? '', next.input));
        } catch (error) {
            settle(next, true, error);
        }
        df.currentUtcDateTime = new Date(df.currentUtcDateTime.getTime() + 100);
    };

    const generator = orchestrator(context);
    let resumed = generator.next();
    while (!resumed.done) {
        const yielded = resumed.value as FakeTask;
        if (yielded.kind === 'any') {
            const children = yielded.children ?? [];
            record.yields.push(`any(${children.filter((c) => c.kind === 'activity').length}${children.some((c) => c.kind === 'timer') ? '+timer' : ''})`);
            for (const child of children) schedule(child);
        } else {
            record.yields.push('task');
            if (!yielded.scheduled) schedule(yielded);
        }
        while (!isDone(yielded)) step();
        if (yielded.kind !== 'any' && yielded.isFaulted) resumed = generator.throw(yielded.result);
        else resumed = generator.next(yielded.kind === 'any' ? undefined : yielded.result);
    }
    record.output = resumed.value;
    record.leftRunning = inFlight.map((t) => t.input);
    return record;
}
