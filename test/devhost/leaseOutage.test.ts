import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TableClient } from '@azure/data-tables';
import { TableStore } from '../../devhost/durable/tableStore';
import { startTestAzurite, uniqueHubName, type TestAzurite } from '../support/testAzurite';

/**
 * The task hub lease when storage misbehaves. Storage that comes back with older data (an emulator that
 * crashed before saving) shows the lease row changed or gone, as if another host had taken it: the host
 * must take its lease back, not stop. Only a row naming another owner means the lease is lost.
 */

const RENEW_MS = 50;
const settle = () => new Promise((resolve) => setTimeout(resolve, RENEW_MS * 6));

describe('the task hub lease under storage faults', () => {
    let azurite: TestAzurite;
    let store: TableStore;
    let table: TableClient;
    const lost: string[] = [];

    before(async () => {
        azurite = await startTestAzurite();
        const hubName = uniqueHubName('lease');
        store = new TableStore({ connectionString: azurite.connectionString, hubName, onLeaseLost: (reason) => void lost.push(reason), renewEveryMs: RENEW_MS });
        await store.open();
        table = TableClient.fromConnectionString(azurite.connectionString, `${hubName}Devhost`, { allowInsecureConnection: true });
    });
    after(async () => {
        await store?.close();
        await azurite?.stop();
    });

    const leaseRow = () => table.getEntity<{ Owner: string; ExpiresAt: Date }>('$lease', 'lease');

    test('a lease row rewritten with this host as owner (an older copy of it) is taken back', async () => {
        const { Owner, ExpiresAt } = await leaseRow();
        await table.updateEntity({ partitionKey: '$lease', rowKey: 'lease', Owner, ExpiresAt }, 'Replace');
        await settle();
        assert.deepEqual(lost, []);
        const after = await leaseRow();
        assert.equal(after.Owner, Owner);
        assert.ok(after.ExpiresAt.getTime() > ExpiresAt.getTime(), 'renewed again');
    });

    test('a lease row that vanished is created again', async () => {
        const { Owner } = await leaseRow();
        await table.deleteEntity('$lease', 'lease');
        await settle();
        assert.deepEqual(lost, []);
        assert.equal((await leaseRow()).Owner, Owner);
    });

    test('a lease row naming another owner means the lease is lost', async () => {
        await table.updateEntity({ partitionKey: '$lease', rowKey: 'lease', Owner: 'elsewhere:1', ExpiresAt: new Date(Date.now() + 15_000) }, 'Replace');
        await settle();
        assert.equal(lost.length, 1);
        assert.match(lost[0] ?? '', /taken by another host/);
    });
});
