import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Engine, storageRetryDelayMs } from '../durable/tsEngine/engine/engine';
import { EventType } from '../durable/tsEngine/history';
import { MemoryStore } from '../durable/tsEngine/store/memoryStore';
import { InstanceMissingError, type EpisodeCommit, type InstanceRecord } from '../durable/tsEngine/store/taskHubStore';
import type { LogRecord } from '../logger';
import { FunctionsCore, type RegisteredFunction } from '../worker/functionsCore';
import { installFunctionsCore } from '../worker/installCore';
import { Invoker } from '../worker/invoke';
import { loadApp } from '../worker/loadApp';
import { fixtureApp, until } from '@mcp-mining/testkit';

/**
 * The engine against a store that fails in the ways a real one can: a commit that was applied although
 * its answer was lost. The fixture app runs in this test process (one app per process, as in the host).
 */

/** Applies the chosen commits, then throws as if the answer never arrived. */
class LostAnswerStore extends MemoryStore {
    commits = 0;
    constructor(private readonly lose: ReadonlySet<number>) {
        super();
    }
    override async commitEpisode(commit: EpisodeCommit): Promise<InstanceRecord> {
        const committed = await super.commitEpisode(commit);
        if (this.lose.has(++this.commits)) throw new Error('socket hang up (the commit was applied)');
        return committed;
    }
}

/** Loses the instance (as a killed Azurite does with its unsaved writes) before the chosen commits. */
class ForgetfulStore extends MemoryStore {
    commits = 0;
    constructor(private readonly forget: ReadonlySet<number>) {
        super();
    }
    override async commitEpisode(commit: EpisodeCommit): Promise<InstanceRecord> {
        if (this.forget.has(++this.commits)) {
            await this.purgeInstance(commit.record.instanceId);
            throw new InstanceMissingError('The instance is missing from storage: ResourceNotFound');
        }
        return super.commitEpisode(commit);
    }
}

const logs: LogRecord[] = [];

/** The fixture app, loaded once: one app per process, as in the host. */
const fixture = (async (): Promise<{ invoker: Invoker; functions: RegisteredFunction[] }> => {
    const sink = (record: LogRecord) => void logs.push(record);
    const core = new FunctionsCore(sink);
    installFunctionsCore(core.moduleApi());
    await loadApp(fixtureApp('durable-app'), core, sink);
    return { invoker: new Invoker(core, sink), functions: [...core.functions.values()] };
})();

describe('the Durable engine when a commit is applied but its answer is lost', () => {
    let invoker: Invoker;
    let functions: RegisteredFunction[];

    before(async () => {
        ({ invoker, functions } = await fixture);
    });

    const engines: Engine[] = [];
    after(async () => {
        for (const engine of engines) await engine.stop();
    });

    async function run(store: MemoryStore, name: string, input: unknown): Promise<InstanceRecord> {
        const engine = new Engine({ store, invoker, functions, extraInputs: () => [], sink: (r) => void logs.push(r) });
        engines.push(engine);
        await engine.start();
        const { instanceId } = await engine.startNew(name, undefined, input);
        const deadline = Date.now() + 10_000;
        for (;;) {
            const record = await engine.getInstance(instanceId);
            if (record && ['Completed', 'Failed', 'Terminated'].includes(record.runtimeStatus)) return record;
            assert.ok(Date.now() < deadline, `still ${record?.runtimeStatus}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    }

    test('the instance is reloaded from the store and finishes, with nothing lost or done twice', async () => {
        // Commit 2 is the episode that records the first activity's result and schedules the second.
        const store = new LostAnswerStore(new Set([2]));
        const record = await run(store, 'Chain', ['a', 'b', 'c']);
        assert.ok(logs.some((r) => /failed; retrying: socket hang up/.test(r.message)), 'the fault was hit');
        assert.equal(record.runtimeStatus, 'Completed');
        assert.deepEqual(JSON.parse(record.output ?? 'null'), ['Hello a!', 'Hello b!', 'Hello c!']);
    });

    test('an instance the store lost is written back from memory and finishes, nothing lost', async () => {
        // Commit 3 records the second activity's result; the store has forgotten everything by then.
        const store = new ForgetfulStore(new Set([3]));
        const record = await run(store, 'Chain', ['p', 'q', 'r']);
        assert.ok(logs.some((r) => /was missing from storage; wrote it back from memory/.test(r.message)), 'the fault was hit');
        assert.equal(record.runtimeStatus, 'Completed');
        assert.deepEqual(JSON.parse(record.output ?? 'null'), ['Hello p!', 'Hello q!', 'Hello r!']);
        // The stored history is whole again: the restored part, then the episodes after it.
        const history = await store.loadHistory(record);
        assert.equal(history.filter((e) => e.EventType === EventType.TaskCompleted).length, 3);
        assert.equal(history.filter((e) => e.EventType === EventType.TaskScheduled).length, 3, 'no activity scheduled twice');
    });

    test('the same holds when the final commit loses its answer', async () => {
        const record = await run(new LostAnswerStore(new Set([4])), 'Chain', ['x', 'y']);
        assert.equal(record.runtimeStatus, 'Completed');
        assert.deepEqual(JSON.parse(record.output ?? 'null'), ['Hello x!', 'Hello y!']);
    });
});

describe('the Durable engine backs off while storage is failing', () => {
    test('retries start at a second and double, up to 8 seconds', () => {
        assert.deepEqual([0, 1, 2, 3, 4, 50].map(storageRetryDelayMs), [1000, 2000, 4000, 8000, 8000, 8000]);
    });
});

/** A store that may lose what it acknowledged (as Azurite killed between saves): `lose` drops an instance. */
class LosingStore extends MemoryStore {
    override readonly losesRecentWrites = true;
    async lose(instanceId: string): Promise<void> {
        await super.purgeInstance(instanceId);
    }
}

describe('the Durable engine when its store loses instances that ended', () => {
    let engine: Engine;
    const store = new LosingStore();

    before(async () => {
        const { invoker, functions } = await fixture;
        engine = new Engine({ store, invoker, functions, extraInputs: () => [], sink: (r) => void logs.push(r) });
        await engine.start();
    });
    after(() => engine.stop());

    async function finished(instanceId: string, executionId?: string): Promise<InstanceRecord> {
        const deadline = Date.now() + 10_000;
        for (;;) {
            const record = await engine.getInstance(instanceId);
            const ended = record && ['Completed', 'Failed', 'Terminated'].includes(record.runtimeStatus);
            if (ended && (executionId === undefined || record.executionId === executionId)) return record;
            assert.ok(Date.now() < deadline, `still ${record?.runtimeStatus}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    }
    /** Longer than the engine's look at kept instances (every 2 s): for what must not happen, so a late look only passes. */
    const aLookLater = () => new Promise((resolve) => setTimeout(resolve, 4500));

    test('a completed instance the store lost reads completed meanwhile and is written back whole', async () => {
        const { instanceId } = await engine.startNew('Chain', undefined, ['m', 'n']);
        await finished(instanceId);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await store.lose(instanceId);
        assert.equal((await engine.getInstance(instanceId))?.runtimeStatus, 'Completed');
        // Written back at the engine's next look (every 2 s): waited for, not slept past.
        await until(async () => (await store.getInstance(instanceId)) !== undefined, 'the lost instance written back', 30_000, 50);
        const stored = await store.getInstance(instanceId);
        assert.equal(stored?.runtimeStatus, 'Completed');
        assert.deepEqual(JSON.parse(stored?.output ?? 'null'), ['Hello m!', 'Hello n!']);
        assert.equal((await store.loadHistory(stored!)).filter((e) => e.EventType === EventType.TaskCompleted).length, 2);
        assert.ok(logs.some((r) => r.message.includes(`Instance ${instanceId} (Completed) was missing from storage`)));
    });

    test('an ended instance started again is not written back over its new execution', async () => {
        const id = `again-${Date.now()}`;
        const first = await finished((await engine.startNew('Chain', id, ['old'])).instanceId);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await store.lose(id);
        const second = await engine.startNew('Chain', id, ['new']);
        assert.notEqual(second.executionId, first.executionId);
        await finished(id, second.executionId);
        await aLookLater();
        const stored = await store.getInstance(id);
        assert.equal(stored?.executionId, second.executionId);
        assert.deepEqual(JSON.parse(stored?.output ?? 'null'), ['Hello new!']);
    });

    test('a purged instance stays purged', async () => {
        const { instanceId } = await engine.startNew('Chain', undefined, ['gone']);
        await finished(instanceId);
        assert.equal(await engine.purge(instanceId), true);
        await aLookLater();
        assert.equal(await store.getInstance(instanceId), undefined);
        assert.equal(await engine.getInstance(instanceId), undefined);
    });
});
