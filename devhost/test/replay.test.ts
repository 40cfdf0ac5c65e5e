import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EventType, event, type HistoryEvent } from '../durable/tsEngine/history';
import { ActionType, type Action } from '../durable/tsEngine/orchestratorState';
import { replay, type FunctionKind } from '../durable/tsEngine/engine/replay';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';

const kinds: Record<string, FunctionKind> = { hello: 'activity', flaky: 'activity', child: 'orchestrator' };

function run(history: HistoryEvent[], actions: Action[]) {
    return replay({
        history,
        actions,
        orchestrationName: 'main',
        instanceId: 'i1',
        executionId: 'e1',
        functionKind: (name) => kinds[name],
    });
}

const started = (at = T0) => [event(EventType.OrchestratorStarted, at), event(EventType.ExecutionStarted, at, { Name: 'main' })];
const call = (name: string, input?: unknown): Action => ({ actionType: ActionType.CallActivity, functionName: name, input });
const scheduled = (id: number, name = 'hello') => event(EventType.TaskScheduled, T0, { EventId: id, Name: name });
const completed = (id: number, result: unknown) => event(EventType.TaskCompleted, T1, { TaskScheduledId: id, Result: JSON.stringify(result) });
const failed = (id: number) => event(EventType.TaskFailed, T1, { TaskScheduledId: id, Reason: 'no', Details: '' });
const timerCreated = (id: number) => event(EventType.TimerCreated, T1, { EventId: id, FireAt: T1 });
const timerFired = (id: number) => event(EventType.TimerFired, T2, { TimerId: id, FireAt: T1 });

describe('replay of the cumulative action list', () => {
    test('a first episode schedules the first activity as sequence number 0', () => {
        const result = run(started(), [call('hello', '"a"')]);
        assert.deepEqual(result.newWork, [{ kind: 'activity', id: 0, name: 'hello', input: '"a"' }]);
    });

    test('chaining: earlier actions that are in the history are not scheduled again', () => {
        const history = [...started(), scheduled(0), event(EventType.OrchestratorStarted, T1), completed(0, 'x')];
        const result = run(history, [call('hello'), call('hello')]);
        assert.deepEqual(result.newWork.map((w) => w.id), [1]);
    });

    test('an action waits for the one before it, as an await does', () => {
        assert.deepEqual(run(started(), [call('hello'), call('hello')]).newWork.map((w) => w.id), [0]);
    });

    test('fan-out numbers the children of Task.all in order', () => {
        const all: Action = { actionType: ActionType.WhenAll, compoundActions: [call('hello', 1), call('hello', 2), call('hello', 3)] };
        assert.deepEqual(run(started(), [all]).newWork.map((w) => w.id), [0, 1, 2]);
    });

    test('an external event takes no sequence number; a timer does', () => {
        const any: Action = {
            actionType: ActionType.WhenAny,
            compoundActions: [
                { actionType: ActionType.WaitForExternalEvent, externalEventName: 'approve' },
                { actionType: ActionType.CreateTimer, fireAt: T2, isCanceled: false },
            ],
        };
        const result = run(started(), [any]);
        assert.deepEqual(result.newWork, [{ kind: 'timer', id: 0, fireAt: T2, canceled: false }]);
    });

    test('after the event wins and the timer is canceled, the next activity is number 1 and the timer is reported canceled', () => {
        const any: Action = {
            actionType: ActionType.WhenAny,
            compoundActions: [
                { actionType: ActionType.WaitForExternalEvent, externalEventName: 'approve' },
                { actionType: ActionType.CreateTimer, fireAt: T2, isCanceled: true },
            ],
        };
        const history = [...started(), timerCreated(0), event(EventType.OrchestratorStarted, T1), event(EventType.EventRaised, T1, { Name: 'approve', Input: '{}' })];
        const result = run(history, [any, call('hello')]);
        assert.deepEqual(result.newWork.map((w) => [w.kind, w.id]), [['activity', 1]]);
        assert.deepEqual(result.canceledTimers, [0]);
    });

    test('a retried activity takes a number for each retry timer and each new attempt, as DTFx does', () => {
        const retry: Action = {
            actionType: ActionType.CallActivityWithRetry,
            functionName: 'flaky',
            retryOptions: { firstRetryIntervalInMilliseconds: 1000, maxNumberOfAttempts: 3 },
        };
        // Attempt 1 (0) failed: a 1 s timer (1).
        let result = run([...started(), scheduled(0, 'flaky'), event(EventType.OrchestratorStarted, T1), failed(0)], [retry]);
        assert.deepEqual(result.newWork, [{ kind: 'timer', id: 1, fireAt: '2026-01-01T00:00:02.000Z', canceled: false }]);
        // The timer fired: attempt 2 (2).
        const history = [...started(), scheduled(0, 'flaky'), event(EventType.OrchestratorStarted, T1), failed(0), timerCreated(1), event(EventType.OrchestratorStarted, T2), timerFired(1)];
        result = run(history, [retry]);
        assert.deepEqual(result.newWork.map((w) => [w.kind, w.id]), [['activity', 2]]);
    });

    test('after the last attempt fails, a timer due at once comes before the failure (the back-compat dummy timer)', () => {
        const retry: Action = {
            actionType: ActionType.CallActivityWithRetry,
            functionName: 'flaky',
            retryOptions: { firstRetryIntervalInMilliseconds: 1000, maxNumberOfAttempts: 1 },
        };
        const result = run([...started(), scheduled(0, 'flaky'), event(EventType.OrchestratorStarted, T1), failed(0)], [retry]);
        assert.deepEqual(result.newWork, [{ kind: 'timer', id: 1, fireAt: T1, canceled: false }]);
    });

    test('a sub-orchestration without an id gets <executionId>:<sequence number>', () => {
        const sub: Action = { actionType: ActionType.CallSubOrchestrator, functionName: 'child', input: { a: 1 } };
        const history = [...started(), scheduled(0), event(EventType.OrchestratorStarted, T1), completed(0, 'x')];
        assert.deepEqual(run(history, [call('hello'), sub]).newWork[0], {
            kind: 'subOrchestration',
            id: 1,
            name: 'child',
            instanceId: 'e1:1',
            input: { a: 1 },
        });
    });

    test('continueAsNew is reported with its input decoded', () => {
        const result = run(started(), [{ actionType: ActionType.ContinueAsNew, input: '"next"' }]);
        assert.deepEqual(result.continueAsNew, { input: 'next' });
    });

    test('an unknown activity, an entity call and a changed orchestrator fail the orchestration with a clear error', () => {
        assert.match(run(started(), [call('missing')]).error ?? '', /'missing' doesn't exist.*not an activity function/);
        assert.match(
            run(started(), [{ actionType: ActionType.CallEntity, instanceId: '@c@k', input: 1 }]).error ?? '',
            /entities .* are not supported by the local host/
        );
        assert.match(run([...started(), scheduled(0), scheduled(1)], [call('hello')]).error ?? '', /Non-deterministic/);
    });
});
