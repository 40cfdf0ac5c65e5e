import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixtureApp, spawnHost, type SpawnedHost } from '@mcp-mining/testkit';

describe('spawnHost (the test helper)', () => {
    const hosts: SpawnedHost[] = [];
    after(async () => {
        for (const host of hosts) await host.stop();
    });

    it('restarts a SIGKILLed host on the same port', async () => {
        const first = await spawnHost({ app: fixtureApp('esm-app'), env: { DEVHOST_LOG_LEVEL: 'warning' } });
        hosts.push(first);
        assert.equal((await fetch(`${first.url}/api/hello`)).status, 200);
        await first.kill();
        await assert.rejects(fetch(`${first.url}/api/hello`));
        const second = await first.restart();
        hosts.push(second);
        assert.equal(second.port, first.port);
        assert.equal((await fetch(`${second.url}/api/hello`)).status, 200);
    });

    it('reports a host that cannot start, with its output', async () => {
        await assert.rejects(spawnHost({ app: fixtureApp('no-such-app') }), /exited before it was ready[\s\S]*host stderr/);
    });
});
