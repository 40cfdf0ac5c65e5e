import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Engine, OrchestrationExistsError } from '../durable/tsEngine/engine/engine';
import { MemoryStore } from '../durable/tsEngine/store/memoryStore';
import type { InstanceRecord } from '../durable/tsEngine/store/taskHubStore';
import type { LogRecord } from '../logger';
import { FunctionsCore, type RegisteredFunction } from '../worker/functionsCore';
import { installFunctionsCore } from '../worker/installCore';
import { Invoker } from '../worker/invoke';
import { loadApp } from '../worker/loadApp';
import { fixtureApp } from '@mcp-mining/testkit';

/**
 * Starts on an instance id that exists, as the real Durable extension's Azure Storage provider answers
 * them: a start on a running id is refused (the management API's 409), concurrent starts on one new id
 * are all accepted and the first one's input is the one that runs, a start on an ended id replaces it.
 * The fixture app runs in this test process (one app per process, as in the host).
 */
describe('the Durable engine starting an id that exists', () => {
    const logs: LogRecord[] = [];
    let engine: Engine;

    before(async () => {
        const sink = (record: LogRecord) => void logs.push(record);
        const core = new FunctionsCore(sink);
        installFunctionsCore(core.moduleApi());
        await loadApp(fixtureApp('durable-app'), core, sink);
        const functions: RegisteredFunction[] = [...core.functions.values()];
        engine = new Engine({ store: new MemoryStore(), invoker: new Invoker(core, sink), functions, extraInputs: () => [], sink });
        await engine.start();
    });

    after(async () => {
        await engine.stop();
    });

    async function until(instanceId: string, done: (record: InstanceRecord) => boolean): Promise<InstanceRecord> {
        const deadline = Date.now() + 20_000;
        for (;;) {
            const record = await engine.getInstance(instanceId);
            if (record && done(record)) return record;
            assert.ok(Date.now() < deadline, `instance ${instanceId} is still ${record?.runtimeStatus}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    }

    test('concurrent starts on one new id are all accepted, and the first input is the one that runs', async () => {
        const id = 'race-new-id';
        const inputs = [{ n: 1 }, { n: 2 }, { n: 3 }];
        const started = await Promise.all(inputs.map((input) => engine.startNew('Forever', id, input)));
        assert.equal(started.length, 3, 'no start was refused');
        const record = await until(id, (r) => r.runtimeStatus === 'Running');
        assert.deepEqual(JSON.parse(record.input ?? 'null'), inputs[0]);
        // Every start answered with that same instance, not with one of its own.
        for (const answer of started) assert.equal(answer.executionId, record.executionId);
    });

    test('a start on a running id is refused', async () => {
        const id = 'race-running-id';
        await engine.startNew('Forever', id, { n: 1 });
        await until(id, (r) => r.runtimeStatus === 'Running');
        await assert.rejects(engine.startNew('Forever', id, { n: 2 }), OrchestrationExistsError);
        assert.deepEqual(JSON.parse((await engine.getInstance(id))?.input ?? 'null'), { n: 1 });
    });

    test('a start on an ended id starts it again with the new input', async () => {
        const id = 'race-ended-id';
        await engine.startNew('Forever', id, { n: 1 });
        await until(id, (r) => r.runtimeStatus === 'Running');
        assert.equal(await engine.terminate(id, 'done'), 'accepted');
        const ended = await until(id, (r) => r.runtimeStatus === 'Terminated');
        await engine.startNew('Forever', id, { n: 2 });
        const again = await until(id, (r) => r.runtimeStatus === 'Running' && r.executionId !== ended.executionId);
        assert.deepEqual(JSON.parse(again.input ?? 'null'), { n: 2 });
    });
});
