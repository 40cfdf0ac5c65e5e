import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { LogRecord } from '../logger';
import { readHostSettings } from '../settings';
import { triggerOf } from '../worker/bindings';
import { FunctionsCore } from '../worker/functionsCore';
import { installFunctionsCore } from '../worker/installCore';
import { Invoker, type InvocationOutcome } from '../worker/invoke';
import { loadApp } from '../worker/loadApp';
import { parseFunctionTimeout } from '../worker/platformFailures';
import { fixtureApp, repoRoot } from '@mcp-mining/testkit';

/**
 * The platform's failures of an invocation, as the local host reports them: functionTimeout enforced with the
 * Functions host's FunctionTimeoutException text, and the fault mode's worker exit. The fixture app runs in this
 * test process (one app per process, as in the host).
 */

describe('functionTimeout, as host.json and its app-setting override give it', () => {
    test('time spans parse to milliseconds; -1 and absence mean none; nonsense is refused', () => {
        assert.equal(parseFunctionTimeout('00:10:00'), 600_000);
        assert.equal(parseFunctionTimeout('01:00:00'), 3_600_000);
        assert.equal(parseFunctionTimeout('1.00:00:00'), 86_400_000);
        assert.equal(parseFunctionTimeout('00:00:01.5'), 1500);
        assert.equal(parseFunctionTimeout('-1'), undefined);
        assert.equal(parseFunctionTimeout(undefined), undefined);
        assert.throws(() => parseFunctionTimeout('10 minutes'), /not a time span/);
        assert.throws(() => parseFunctionTimeout('00:00:00'), /must be positive/);
    });

    test("this repository's host.json gives 10 minutes; AzureFunctionsJobHost__functionTimeout overrides it", () => {
        const root = repoRoot;
        const env = { TASKHUB_NAME: 'hub' };
        assert.deepEqual(readHostSettings(root, env).functionTimeout, { text: '00:10:00', ms: 600_000 });
        assert.deepEqual(readHostSettings(root, { ...env, AzureFunctionsJobHost__functionTimeout: '00:00:02' }).functionTimeout, {
            text: '00:00:02',
            ms: 2000,
        });
    });
});

describe('an invocation failed by the platform', () => {
    const logs: LogRecord[] = [];
    let core: FunctionsCore;
    const sink = (record: LogRecord) => void logs.push(record);

    before(async () => {
        core = new FunctionsCore(sink);
        installFunctionsCore(core.moduleApi());
        await loadApp(fixtureApp('durable-app'), core, sink);
    });

    function sleep(invoker: Invoker, ms: number): Promise<InvocationOutcome> {
        const fn = core.functions.get('Sleep');
        const trigger = fn && triggerOf(fn);
        assert.ok(trigger, 'the fixture has the Sleep activity');
        return invoker.invoke({ functionId: 'Sleep', inputData: [{ name: trigger.name, data: { json: String(ms) } }] });
    }

    test('past functionTimeout it fails with the host text, at the timeout and not when the function ends', async () => {
        const invoker = new Invoker(core, sink, { functionTimeout: { text: '00:00:01', ms: 1000 } });
        const started = Date.now();
        const outcome = await sleep(invoker, 4000);
        const took = Date.now() - started;
        assert.equal(outcome.ok, false);
        assert.ok(!outcome.ok && outcome.platform === 'timeout');
        assert.equal(!outcome.ok && outcome.error.message, 'Timeout value of 00:00:01 was exceeded by function: Functions.Sleep');
        assert.ok(took >= 950 && took < 3500, `failed after ${took} ms`);
        assert.ok(logs.some((r) => r.level === 'error' && /FunctionTimeoutException: Timeout value of 00:00:01/.test(r.message)));
    });

    test('within functionTimeout the function answers as usual', async () => {
        const invoker = new Invoker(core, sink, { functionTimeout: { text: '00:00:05', ms: 5000 } });
        const outcome = await sleep(invoker, 50);
        assert.ok(outcome.ok, JSON.stringify(outcome));
    });

    test('the fault mode fails the oldest in-flight invocation with the worker-exit text; none in flight, nothing to fail', async () => {
        const invoker = new Invoker(core, sink);
        assert.equal(invoker.failInFlight('worker-exit', 'Sleep'), undefined);
        const first = sleep(invoker, 1500);
        const second = sleep(invoker, 1500);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(invoker.failInFlight('worker-exit', 'Hello'), undefined, 'no Hello in flight');
        const failedId = invoker.failInFlight('worker-exit', 'Sleep');
        assert.ok(failedId);
        const [a, b] = await Promise.all([first, second]);
        assert.equal(a.invocationId, failedId);
        assert.ok(!a.ok && a.platform === 'worker-exit' && a.error.message === 'node exited with code 1', JSON.stringify(a));
        assert.ok(b.ok, 'the other invocation is not touched');
        // The failed function ran on; its late result is discarded, and said so.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.ok(logs.some((r) => r.invocationId === failedId && /its result is discarded/.test(r.message)));
    });
});
