import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHAIN_12, describeOnEachBackend, invocationHolds, type Mined, onFreeAzuritePorts, repoRoot, type SpawnedHost, spawnHost, uniqueHubName } from '@mcp-mining/testkit';

/**
 * `npm start` killed with SIGKILL in the middle of a run (its process group, less the Azurite it started, which
 * has a group of its own), and started again at once, as a developer would. The Azurite left behind must not die
 * later (its output goes to a file, not to a pipe to the dead host), the new host must replace it knowingly,
 * every call must answer within the development visibility timeout (local.settings.json), and the run must end
 * with the chain computed beforehand.
 */

interface Status {
    status: 'completed' | 'running' | 'failed' | 'not_found';
    workflow_id: string;
    result?: Mined;
}

const VISIBILITY_TIMEOUT_MS = (() => {
    const settings = JSON.parse(readFileSync(join(repoRoot, 'local.settings.json'), 'utf8')) as { Values: Record<string, string> };
    const text = settings.Values['AzureFunctionsJobHost__extensions__durableTask__storageProvider__workItemQueueVisibilityTimeout'] ?? '';
    const [h = 0, m = 0, s = 0] = text.split(':').map(Number);
    return ((h * 60 + m) * 60 + s) * 1000;
})();

describeOnEachBackend('npm start killed with SIGKILL mid-run, then started again at once', (backend) => {
    let host: SpawnedHost;
    const location = mkdtempSync(join(tmpdir(), 'azurite-kill-'));

    before(async () => {
        const started = await onFreeAzuritePorts((ports) =>
            spawnHost({
                app: repoRoot,
                storage: 'azure',
                azurite: true,
                durable: backend,
                args: ['--azurite-ports', [ports.blob, ports.queue, ports.table].join(','), '--azurite-location', location],
                // local.settings.json's own development settings (the visibility timeout among them) apply.
                env: { AzureWebJobsStorage: 'UseDevelopmentStorage=true', TASKHUB_NAME: uniqueHubName(`kill${backend}`), WAIT_BUDGET_SECONDS: '0' },
            }),
        );
        host = started.value;
    });
    after(async () => {
        await host?.stop();
        rmSync(location, { recursive: true, force: true });
    });

    async function connect(): Promise<Client> {
        const client = new Client({ name: 'host-kill', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
        return client;
    }

    const azuritePid = () => (JSON.parse(readFileSync(join(location, 'azurite-owner.json'), 'utf8')) as { azuritePid: number }).azuritePid;

    test('the run completes with the right chain, and every call answers within the visibility timeout', async () => {
        assert.ok(VISIBILITY_TIMEOUT_MS > 0 && VISIBILITY_TIMEOUT_MS <= 60_000, `local.settings.json sets a short visibility timeout (${VISIBILITY_TIMEOUT_MS} ms)`);
        assert.match(host.stderr, /Started Azurite/);
        const firstAzurite = azuritePid();
        if (process.platform === 'linux') assert.equal(readlinkSync(`/proc/${firstAzurite}/fd/2`), join(location, 'azurite.log'), 'not a pipe to the host');

        let client = await connect();
        // Mid-run as a state: a MineBlock call held in flight when the host dies (the restarted host holds nothing).
        const holds = invocationHolds(host.url);
        await holds.hold('MineBlock');
        const started = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 12, blocks: 4 } })) as CallToolResult;
        const { workflow_id: id, status } = started.structuredContent as unknown as Status;
        assert.equal(status, 'running');
        await holds.waitForHeld('MineBlock');
        await client.close().catch(() => undefined);
        await host.kill();
        assert.doesNotThrow(() => process.kill(firstAzurite, 0), 'Azurite outlives the killed host');

        const killedAt = Date.now();
        host = await host.restart();
        assert.match(host.stderr, new RegExp(`Replacing the Azurite \\(pid ${firstAzurite}\\)`), 'the orphan is replaced, and said so');
        assert.notEqual(azuritePid(), firstAzurite);

        client = await connect();
        let slowest = 0;
        let done: Status | undefined;
        while (Date.now() - killedAt < 300_000) {
            const asked = Date.now();
            const answer = (await client.callTool({ name: 'get_mining_result', arguments: { workflow_id: id } })) as CallToolResult;
            const took = Date.now() - asked;
            slowest = Math.max(slowest, took);
            assert.notEqual(answer.isError, true, `a call failed after the restart: ${JSON.stringify(answer.content)}`);
            assert.ok(took < VISIBILITY_TIMEOUT_MS, `a call took ${took} ms`);
            const status = answer.structuredContent as unknown as Status;
            if (status.status !== 'running') {
                done = status;
                break;
            }
            await new Promise((resolve) => setTimeout(resolve, 1000));
        }
        await client.close().catch(() => undefined);
        assert.equal(done?.status, 'completed', JSON.stringify(done));
        assert.deepEqual(
            done.result?.blocks.map(({ index, nonce, hash }) => ({ index, nonce, hash })),
            CHAIN_12
        );
        process.stdout.write(`# [${backend}] completed ${Date.now() - killedAt} ms after the kill; slowest call ${slowest} ms\n`);
    });
});
