import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DurableHttpError, isNotFoundError } from '../../src/workflow/durableHttpError';
import { ManagementApiClient } from '../../src/workflow/managementClient';

/**
 * The durable client over a loopback server that answers as the Durable extension's management API
 * (HttpApiHandler) does: the errors carry the HTTP status, and never the URL or its key.
 */

interface Seen {
    method: string;
    url: URL;
    body: string;
    headers: IncomingMessage['headers'];
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let answer: (req: Seen, res: ServerResponse) => void = (_req, res) => res.writeHead(500).end();

before(async () => {
    server = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (body += chunk));
        req.on('end', () => {
            const request = { method: req.method ?? '', url: new URL(req.url ?? '/', 'http://127.0.0.1'), body, headers: req.headers };
            seen.push(request);
            answer(request, res);
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
    await new Promise((resolve) => server.close(resolve));
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const STATUS = {
    name: 'MineChain',
    instanceId: 'shared-abc',
    runtimeStatus: 'Running',
    input: { difficulty: 5, blocks: 2 },
    customStatus: null,
    output: null,
    createdTime: '2026-11-29T12:00:00Z',
    lastUpdatedTime: '2026-11-29T12:00:01Z',
};

/** The binding the extension gives an out-of-process app: templates with the system key, and rpcBaseUrl. */
function binding(withRpc: boolean) {
    const query = 'taskHub=hub&connection=Storage&code=SECRETKEY';
    const instance = `${base}/runtime/webhooks/durabletask/instances/INSTANCEID`;
    return {
        taskHubName: 'hub',
        creationUrls: { createNewInstancePostUri: `${base}/runtime/webhooks/durabletask/orchestrators/{functionName}[/{instanceId}]?${query}` },
        managementUrls: {
            id: 'INSTANCEID',
            statusQueryGetUri: `${instance}?${query}`,
            terminatePostUri: `${instance}/terminate?reason={text}&${query}`,
            purgeHistoryDeleteUri: `${instance}?${query}`,
        },
        rpcBaseUrl: withRpc ? `${base}/durabletask/` : null,
    };
}

async function failure(promise: Promise<unknown>): Promise<DurableHttpError> {
    try {
        await promise;
    } catch (error) {
        assert.ok(error instanceof DurableHttpError, String(error));
        assert.doesNotMatch(error.message, /SECRETKEY|127\.0\.0\.1|durabletask/);
        return error;
    }
    assert.fail('expected a failure');
}

describe('ManagementApiClient', () => {
    let client: ManagementApiClient;
    before(() => {
        client = new ManagementApiClient(binding(true));
    });

    it('reads a status (202 while running, 200 once ended) with the input, times as Dates', async () => {
        answer = (_req, res) => json(res, 202, STATUS);
        const status = await client.getStatus('shared-abc', { showInput: true });
        assert.equal(status.runtimeStatus, 'Running');
        assert.deepEqual(status.input, STATUS.input);
        assert.ok(status.createdTime instanceof Date && status.createdTime.toISOString() === '2026-11-29T12:00:00.000Z');
        const request = seen.at(-1);
        assert.equal(request?.url.pathname, '/durabletask/instances/shared-abc');
        assert.equal(request?.url.searchParams.get('showInput'), 'true');
        answer = (_req, res) => json(res, 200, { ...STATUS, runtimeStatus: 'Completed' });
        assert.equal((await client.getStatus('shared-abc')).runtimeStatus, 'Completed');
    });

    it('classifies "no such instance" by the 404, for a read and for a terminate', async () => {
        answer = (_req, res) => res.writeHead(404).end();
        const read = await failure(client.getStatus('shared-none'));
        assert.equal(read.status, 404);
        assert.ok(isNotFoundError(read));
        assert.ok(isNotFoundError(await failure(client.terminate('shared-none', 'why'))));
    });

    it('does not take other failures, or an error that only says 404 in its text, for not found', async () => {
        answer = (_req, res) => json(res, 500, { Message: 'Something went wrong while processing your request' });
        const error = await failure(client.getStatus('shared-abc'));
        assert.equal(error.status, 500);
        assert.equal(isNotFoundError(error), false);
        assert.equal(isNotFoundError(new Error('replied with HTTP 404 response')), false);
    });

    it('starts with the input as the JSON body; a start on a running id is its 409', async () => {
        answer = (_req, res) => json(res, 202, { id: 'shared-k1' });
        assert.equal(await client.startNew('MineChain', { instanceId: 'shared-k1', input: { difficulty: 5, blocks: 2 } }), 'shared-k1');
        const request = seen.at(-1);
        assert.equal(request?.method, 'POST');
        assert.equal(request?.url.pathname, '/durabletask/orchestrators/MineChain/shared-k1');
        assert.deepEqual(JSON.parse(request?.body ?? ''), { difficulty: 5, blocks: 2 });
        answer = (_req, res) => json(res, 409, { Message: 'An Orchestration instance with the status Running already exists.' });
        assert.equal((await failure(client.startNew('MineChain', { instanceId: 'shared-k1', input: {} }))).status, 409);
    });

    it('on the Durable Task Scheduler, a start on a Pending or Running id is the same 409', async () => {
        // Its backend throws OrchestrationAlreadyExistsException (Azure/Durable-Task-Scheduler#40, this message), which
        // the extension's HttpApiHandler.HandleStartOrchestratorRequestAsync answers with 409 Conflict and the
        // exception's message (docs/contract.md, "Idempotency keys"): the claim and the start take it as refused.
        answer = (_req, res) => json(res, 409, { Message: "An Orchestration instance with the status 'Running' already exists." });
        const error = await failure(client.startNew('KeyClaim', { instanceId: 'claim-shared-k1', input: {} }));
        assert.ok(error instanceof DurableHttpError);
        assert.equal(error.status, 409);
    });

    it('terminates with the reason as one encoded query value; 410 (already ended) is no error', async () => {
        answer = (_req, res) => res.writeHead(202).end();
        await client.terminate('shared-abc', 'cancel_mining: cancelled & gone');
        const request = seen.at(-1);
        assert.equal(request?.url.pathname, '/durabletask/instances/shared-abc/terminate');
        assert.equal(request?.url.searchParams.get('reason'), 'cancel_mining: cancelled & gone');
        answer = (_req, res) => res.writeHead(410).end();
        await client.terminate('shared-abc', 'again');
    });

    it('purges (404: nothing to delete)', async () => {
        answer = (_req, res) => json(res, 200, { instancesDeleted: 1 });
        assert.deepEqual(await client.purgeInstanceHistory('shared-abc'), { instancesDeleted: 1 });
        assert.equal(seen.at(-1)?.method, 'DELETE');
        answer = (_req, res) => res.writeHead(404).end();
        assert.deepEqual(await client.purgeInstanceHistory('shared-abc'), { instancesDeleted: 0 });
    });

    it('without rpcBaseUrl, uses the management URL templates (with their key)', async () => {
        const templated = new ManagementApiClient(binding(false));
        answer = (_req, res) => json(res, 202, STATUS);
        await templated.getStatus('shared-abc', { showInput: true });
        let request = seen.at(-1);
        assert.equal(request?.url.pathname, '/runtime/webhooks/durabletask/instances/shared-abc');
        assert.equal(request?.url.searchParams.get('code'), 'SECRETKEY');
        assert.equal(request?.url.searchParams.get('showInput'), 'true');
        answer = (_req, res) => res.writeHead(202).end();
        await templated.terminate('shared-abc', 'a b&c');
        request = seen.at(-1);
        assert.equal(request?.url.pathname, '/runtime/webhooks/durabletask/instances/shared-abc/terminate');
        assert.equal(request?.url.searchParams.get('reason'), 'a b&c');
        answer = (_req, res) => json(res, 202, { id: 'shared-k2' });
        await templated.startNew('MineChain', { instanceId: 'shared-k2', input: null });
        assert.equal(seen.at(-1)?.url.pathname, '/runtime/webhooks/durabletask/orchestrators/MineChain/shared-k2');
    });

    it('refuses a binding that is not a durable client binding', () => {
        assert.throws(() => new ManagementApiClient(undefined), /durable client input binding/);
        assert.throws(() => new ManagementApiClient({ taskHubName: 'x' }), /durable client input binding/);
    });
});
