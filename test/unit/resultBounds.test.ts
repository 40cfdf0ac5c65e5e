import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import type { MiningResult } from '../../src/jobs/mining/contracts';
import { clientOnBackend } from './helpers/inMemoryClient';
import { MemoryBackend } from './helpers/memoryBackend';
import { longResult } from '../support/longResult';

/**
 * Every answer that can carry a completed result is cut to MAX_RESULT_CHARS: the plain tools, and the
 * task path (tasks/result, which answers callToolStream too). Only the workflow resource is whole.
 */

const MAX = 1000;
const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', DEFAULT_DIFFICULTY: '12', MAX_RESULT_CHARS: String(MAX) });
const LONG = longResult(16);

const clients: Client[] = [];
after(async () => {
    await Promise.all(clients.map((c) => c.close()));
});

/** A backend where every start completes at once with the 16-block result. */
function completingBackend(): MemoryBackend {
    const backend = new MemoryBackend();
    const start = backend.startNew.bind(backend);
    backend.startNew = async (name, options) => {
        const id = await start(name, options);
        backend.set(id, { runtimeStatus: 'Completed', output: LONG, customStatus: { blocks_done: 16, blocks_total: 16 } });
        return id;
    };
    return backend;
}

const connect = (backend: MemoryBackend) => clientOnBackend(backend, CONFIG, clients);

/** The answer is within the bound, as text and as structured content, and says it was cut. */
function assertBounded(result: CallToolResult, where: string): void {
    const text = result.content[0];
    assert.ok(text?.type === 'text', where);
    assert.ok(text.text.length <= MAX, `${where}: ${text.text.length} characters of text, more than ${MAX}`);
    assert.ok(JSON.stringify(result.structuredContent).length <= MAX, `${where}: structured content longer than ${MAX}`);
    const status = result.structuredContent as { status: string; truncated?: boolean; result: MiningResult; next?: string };
    assert.equal(status.status, 'completed', where);
    assert.equal(status.truncated, true, where);
    assert.ok(status.result.blocks.length < LONG.blocks.length, where);
    assert.deepEqual(status.result.blocks, LONG.blocks.slice(0, status.result.blocks.length), `${where}: a prefix of the chain`);
    assert.match(status.next ?? '', /Read the resource mining:\/\/workflows\//, where);
}

describe('results cut to MAX_RESULT_CHARS on every path', () => {
    it('the 16-block result is longer than the bound to begin with', () => {
        assert.ok(JSON.stringify(LONG).length > MAX);
    });

    it('tasks/result', async () => {
        const backend = completingBackend();
        const client = await connect(backend);
        const { task } = await client.request(
            { method: 'tools/call', params: { name: 'start_mining', arguments: { difficulty: 4, blocks: 16 }, task: {} } },
            CreateTaskResultSchema
        );
        const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
        assertBounded(result, 'tasks/result');
    });

    it('callToolStream (tasks/get, then tasks/result)', async () => {
        const client = await connect(completingBackend());
        let result: CallToolResult | undefined;
        for await (const message of client.experimental.tasks.callToolStream({ name: 'start_mining', arguments: { difficulty: 4, blocks: 16 } })) {
            if (message.type === 'result') result = message.result as CallToolResult;
            if (message.type === 'error') assert.fail(message.error.message);
        }
        assert.ok(result);
        assertBounded(result, 'callToolStream');
    });

    it('start_mining, get_mining_result and cancel_mining', async () => {
        const client = await connect(completingBackend());
        const started = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 16 } })) as CallToolResult;
        assertBounded(started, 'start_mining');
        const id = (started.structuredContent as { workflow_id: string }).workflow_id;
        for (const name of ['get_mining_result', 'cancel_mining']) {
            assertBounded((await client.callTool({ name, arguments: { workflow_id: id } })) as CallToolResult, name);
        }
    });
});
