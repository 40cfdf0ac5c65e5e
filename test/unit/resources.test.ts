import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, type Config } from '../../src/config';
import { buildMcpServer } from '../../src/mcp/era2025/server';
import * as outputSchemas from '../../src/mcp/outputSchemas';
import * as truncate from '../../src/mcp/truncate';
import { MINING } from '../../src/jobs/mining/job';
import type { MiningResult } from '../../src/jobs/mining/contracts';
import type { CompletedStatus, JobStatus } from '../../src/mcp/statusObjects';

type MinedStatus = Exclude<JobStatus, CompletedStatus> | (CompletedStatus & { result: MiningResult });
const truncateStatus = (status: JobStatus, maxChars: number) => truncate.truncateStatus(MINING, status, maxChars) as MinedStatus;
const anyStatusSchema = outputSchemas.anyStatusSchema(MINING);
import { principalTenant, SHARED_TENANT, type Tenant } from '../../src/workflow/tenant';
import { FakeClock, MemoryLog } from './helpers/fakes';
import { MemoryBackend } from './helpers/memoryBackend';
import { connectInMemory } from './helpers/inMemoryClient';
import { longResult } from '../support/longResult';

/** The workflow resource, resource links in answers, and results cut to MAX_RESULT_CHARS. */

const CONFIG: Config = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12', MAX_RESULT_CHARS: '1000' });

function textOf(content: { text: string } | { blob: string } | undefined): string {
    assert.ok(content !== undefined && 'text' in content);
    return content.text;
}

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

async function connect(backend: MemoryBackend, tenant: Tenant = SHARED_TENANT) {
    const server = buildMcpServer({ client: backend, config: CONFIG, log: new MemoryLog(), clock: new FakeClock(), tenant, wallNow: () => backend.now });
    const { client } = await connectInMemory(server, clients);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { client, call };
}

function completedWith(backend: MemoryBackend, id: string, result: MiningResult): string {
    backend.instances.set(id, {
        instanceId: id,
        runtimeStatus: 'Completed',
        input: { difficulty: result.difficulty, blocks: result.blocks.length },
        output: result,
        createdTime: new Date(backend.now),
        lastUpdatedTime: new Date(backend.now),
    });
    return id;
}

describe('truncateStatus', () => {
    const status: CompletedStatus & { result: MiningResult } = { status: 'completed', workflow_id: 'shared-x', result: longResult(16) };

    it('leaves a status that fits, and anything not completed, as it is', () => {
        assert.equal(truncateStatus(status, 1_000_000), status);
        const running = { status: 'running', workflow_id: 'x', poll_after_seconds: 5, next: 'n' } as const;
        assert.equal(truncateStatus(running, 10), running);
    });

    it('keeps the longest prefix of blocks that fits, marks it truncated, and stays schema-valid', () => {
        for (const bound of [1000, 1500, 2500]) {
            const cut = truncateStatus(status, bound);
            assert.equal(cut.status, 'completed');
            if (cut.status !== 'completed') return;
            const text = JSON.stringify(cut);
            assert.ok(text.length <= bound, `${text.length} <= ${bound}`);
            const kept = cut.result.blocks.length;
            assert.ok(kept > 0 && kept < 16);
            assert.deepEqual(cut.result.blocks, status.result.blocks.slice(0, kept));
            // One more block would not have fitted.
            const oneMore = { ...cut, result: { ...cut.result, blocks: status.result.blocks.slice(0, kept + 1) } };
            assert.ok(JSON.stringify(oneMore).length > bound);
            assert.equal(cut.truncated, true);
            assert.equal(cut.result.total_attempts, status.result.total_attempts);
            assert.equal(
                cut.next,
                `result.blocks holds the first ${kept} of 16 blocks, cut to fit the answer size limit. Read the resource mining://workflows/shared-x for the whole result.`
            );
            assert.ok(anyStatusSchema.safeParse(cut).success);
        }
    });
});

describe('the workflow resource', () => {
    it('is a template, not listed, and reads back as the status JSON that get_mining_result gives', async () => {
        const backend = new MemoryBackend();
        const { client, call } = await connect(backend);
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(
            resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]),
            [['mining://workflows/{workflow_id}', 'application/json']]
        );
        assert.deepEqual((await client.listResources()).resources, []);

        const id = completedWith(backend, 'shared-short', longResult(2));
        const read = await client.readResource({ uri: `mining://workflows/${id}` });
        assert.equal(read.contents.length, 1);
        assert.equal(read.contents[0]?.mimeType, 'application/json');
        const tool = await call('get_mining_result', { workflow_id: id });
        assert.deepEqual(JSON.parse(textOf(read.contents[0])), tool.structuredContent);
    });

    it("gives the whole of a result that the tools cut to MAX_RESULT_CHARS", async () => {
        const backend = new MemoryBackend();
        const { client, call } = await connect(backend);
        const id = completedWith(backend, 'shared-long', longResult(16));
        const answer = await call('get_mining_result', { workflow_id: id });
        const status = answer.structuredContent as { truncated?: boolean; result: MiningResult };
        assert.equal(status.truncated, true);
        assert.ok(status.result.blocks.length < 16);
        const text = answer.content[0];
        assert.ok(text?.type === 'text' && text.text.length <= 1000);
        const link = answer.content[1];
        assert.ok(link?.type === 'resource_link');
        const read = await client.readResource({ uri: link.uri });
        const whole = JSON.parse(textOf(read.contents[0])) as { truncated?: boolean; result: MiningResult };
        assert.deepEqual(whole, { status: 'completed', workflow_id: id, result: longResult(16) });
    });

    it('links running and completed answers only', async () => {
        const backend = new MemoryBackend();
        const { call } = await connect(backend);
        const started = await call('start_mining', { blocks: 2 });
        assert.deepEqual(
            started.content.map((c) => c.type),
            ['text', 'resource_link']
        );
        const missing = await call('get_mining_result', { workflow_id: 'shared-nothing' });
        assert.deepEqual(
            missing.content.map((c) => c.type),
            ['text']
        );
    });

    it("answers an unknown, malformed or another tenant's workflow as a resource that does not exist", async () => {
        const backend = new MemoryBackend();
        const alice = await connect(backend, principalTenant('aad', 'alice'));
        const bob = await connect(backend, principalTenant('aad', 'bob'));
        const started = await alice.call('start_mining', { blocks: 2 });
        const id = (started.structuredContent as { workflow_id: string }).workflow_id;
        assert.ok(await alice.client.readResource({ uri: `mining://workflows/${id}` }));
        for (const uri of [`mining://workflows/${id}`, 'mining://workflows/..%2F..', `mining://workflows/${'x'.repeat(200)}`]) {
            await assert.rejects(bob.client.readResource({ uri }), (error: unknown) => {
                assert.ok(error instanceof McpError);
                assert.equal(error.code, -32602);
                assert.match(error.message, /Resource .* not found/);
                return true;
            });
        }
    });
});
