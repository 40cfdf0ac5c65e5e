import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TableClient } from '@azure/data-tables';
import { EventType, type HistoryEvent } from '../durable/tsEngine/history';
import { InstanceMissingError, type InstanceRecord } from '../durable/tsEngine/store/taskHubStore';
import { TableStore } from '../durable/tsEngine/store/tableStore';
import { startTestAzurite, type TestAzurite, uniqueHubName, until } from '@mcp-mining/testkit';

/**
 * The Azure Tables store when storage comes back with older data or none (Azurite killed before it saved
 * its latest writes). The lease row changed or gone looks as if another host had taken it: the host must
 * take its lease back, not stop; only a row naming another owner means the lease is lost. An instance
 * row gone is reported as such (not retried forever), and the instance can be written back from memory.
 */

// Renewed every millisecond: each renewal outlasts the tick, so a tick always comes while one is in
// flight (two renewals that raced each other once took a vanished row back twice, and lost it).
const RENEW_MS = 1;

// One Azurite for the file; each suite has a task hub of its own.
let azurite: TestAzurite;
before(async () => {
    azurite = await startTestAzurite();
});
after(async () => {
    await azurite?.stop();
});
/** A lease row's state, or undefined while there is none. */
async function readLease(table: TableClient): Promise<{ Owner: string; ExpiresAt: Date } | undefined> {
    try {
        return await table.getEntity<{ Owner: string; ExpiresAt: Date }>('$lease', 'lease');
    } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
    }
}

describe('the task hub lease under storage faults', () => {
    let store: TableStore;
    let table: TableClient;
    const lost: string[] = [];

    before(async () => {
        const hubName = uniqueHubName('lease');
        store = new TableStore({ connectionString: azurite.connectionString, hubName, onLeaseLost: (reason) => void lost.push(reason), renewEveryMs: RENEW_MS });
        await store.open();
        table = TableClient.fromConnectionString(azurite.connectionString, `${hubName}Devhost`, { allowInsecureConnection: true });
    });
    after(async () => {
        await store?.close();
    });

    const leaseRow = () => table.getEntity<{ Owner: string; ExpiresAt: Date }>('$lease', 'lease');

    test('a lease row rewritten with this host as owner (an older copy of it) is taken back', async () => {
        const { Owner, ExpiresAt } = await leaseRow();
        await table.updateEntity({ partitionKey: '$lease', rowKey: 'lease', Owner, ExpiresAt }, 'Replace');
        // Renewed again: a later expiry than the copy written back, by the same owner.
        await until(async () => ((await readLease(table))?.ExpiresAt.getTime() ?? 0) > ExpiresAt.getTime(), 'the lease is renewed');
        assert.deepEqual(lost, []);
        assert.equal((await leaseRow()).Owner, Owner);
    });

    test('a lease row that vanished is created again', async () => {
        const { Owner } = await leaseRow();
        await table.deleteEntity('$lease', 'lease');
        await until(async () => (await readLease(table)) !== undefined, 'the lease row is written again');
        assert.deepEqual(lost, []);
        assert.equal((await leaseRow()).Owner, Owner);
    });

    test('a lease row naming another owner means the lease is lost', async () => {
        await table.updateEntity({ partitionKey: '$lease', rowKey: 'lease', Owner: 'elsewhere:1', ExpiresAt: new Date(Date.now() + 15_000) }, 'Replace');
        await until(() => lost.length > 0, 'the lease is reported lost');
        assert.equal(lost.length, 1);
        assert.match(lost[0] ?? '', /taken by another host/);
    });
});

describe('an instance that storage lost', () => {
    let store: TableStore;
    let table: TableClient;

    before(async () => {
        const hubName = uniqueHubName('lost');
        store = new TableStore({ connectionString: azurite.connectionString, hubName });
        await store.open();
        table = TableClient.fromConnectionString(azurite.connectionString, `${hubName}Devhost`, { allowInsecureConnection: true });
    });
    after(async () => {
        await store?.close();
    });

    const event = (type: EventType, id: number): HistoryEvent => ({ EventType: type, EventId: id, IsPlayed: true, Timestamp: new Date().toISOString() });

    test('a commit to a vanished row is InstanceMissingError; restoreInstance writes it back whole', async () => {
        const now = new Date().toISOString();
        const record: InstanceRecord = {
            instanceId: 'lost-1',
            name: 'Chain',
            version: '',
            executionId: 'exec1',
            runtimeStatus: 'Pending',
            input: '["a"]',
            output: null,
            customStatus: null,
            createdTime: now,
            lastUpdatedTime: now,
            historyChunks: 0,
        };
        const start = { key: 'start', event: event(EventType.ExecutionStarted, -1) };
        const created = await store.createInstance(record, start, () => false);
        assert.ok('created' in created);
        const first = await store.commitEpisode({
            record: { ...created.created, runtimeStatus: 'Running', historyChunks: 1 },
            newEvents: [event(EventType.OrchestratorStarted, -1), event(EventType.TaskScheduled, 0)],
            consumed: ['start'],
            added: [],
            newExecution: false,
        });

        // Storage loses the instance row, as after a crash of the emulator.
        await table.deleteEntity('lost-1', 'instance');
        const next = { record: { ...first, historyChunks: 2 }, newEvents: [event(EventType.TaskCompleted, -1)], consumed: [], added: [], newExecution: false };
        await assert.rejects(store.commitEpisode(next), InstanceMissingError);

        const history = [event(EventType.OrchestratorStarted, -1), event(EventType.TaskScheduled, 0)];
        const waiting = { key: 'later', event: event(EventType.EventRaised, -1) };
        const restored = await store.restoreInstance(first, history, [waiting]);
        assert.equal(restored.historyChunks, 1);
        assert.deepEqual(await store.loadHistory(restored), history);
        assert.deepEqual((await store.loadInbox('lost-1')).map((m) => m.key), ['later']);
        assert.equal((await store.getInstance('lost-1'))?.runtimeStatus, 'Running');
        // And the instance carries on from there.
        const after = await store.commitEpisode({ ...next, record: { ...restored, historyChunks: 2 } });
        assert.equal((await store.loadHistory(after)).length, 3);
    });
});
