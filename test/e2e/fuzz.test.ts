import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AppOnAzurite, describeOnEachBackend, FuzzGenerator, type FuzzRequest, pollUntilDone, rawRequest, type RawResponse, repoRoot, type SpawnedHost, startAppOnAzurite, until } from '@mcp-mining/testkit';

/**
 * Bad input over real HTTP: thousands of generated malformed requests against the app on the local host
 * (Azurite, function keys on), each of which must get a 4xx or a JSON-RPC / tool error, never a 5xx, and
 * never a stack trace, a file path, an internal URL or the key in the body. Then a normal call must still
 * work. The generator is seeded: FUZZ_SEED=<n> replays a run, FUZZ_COUNT=<n> changes its size.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const COUNT = Number(process.env.FUZZ_COUNT ?? 2000);
const CONCURRENCY = 12;
const KEY = 'fuzz-test-function-key';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text that would betray internals: a stack frame, a path on disk, an address or route behind the app, the key. */
const LEAKS: readonly [string, RegExp][] = [
    ['a stack frame', /\n\s+at \S/],
    ['a file path', new RegExp(`${escapeRegExp(repoRoot)}|/home/|/tmp/|dist/|node_modules|\\.js:\\d|\\.ts:\\d`)],
    ['an internal URL', /127\.0\.0\.1|localhost:|runtime\/webhooks|durabletask|code=/i],
    ['the function key', new RegExp(KEY)],
];

interface Answer {
    status: number;
    contentType: string;
    text: string;
}

/** The JSON-RPC messages of a 200 answer (SSE data lines, or one JSON body). */
function messagesOf(answer: Answer): Array<Record<string, unknown>> {
    if (answer.contentType.includes('text/event-stream')) {
        return answer.text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    }
    return [JSON.parse(answer.text) as Record<string, unknown>];
}

/** Kinds of mistake with one right answer; the rest may be refused at several layers. */
function expectedStatus(request: FuzzRequest): number | undefined {
    if (request.label.startsWith('oversized')) return 413;
    if (request.label.startsWith('nested')) return 400;
    if (request.label === 'JSON-RPC batch') return 400;
    if (/^HTTP (GET|DELETE|PUT|PATCH|OPTIONS|HEAD)$/.test(request.label)) return 405;
    return undefined;
}

/** Every answer to bad input: a 4xx, a 2xx that is a JSON-RPC error or a tool result, nothing else. */
function checkAnswer(request: FuzzRequest, answer: Answer): void {
    const what = `${request.label}: ${request.method} ${request.pathSuffix} ${JSON.stringify(request.body?.slice(0, 200))} -> ${answer.status} ${answer.text.slice(0, 300)}`;
    assert.ok(answer.status < 500, `no 5xx; ${what}`);
    const expected = expectedStatus(request);
    if (expected !== undefined) assert.equal(answer.status, expected, what);
    assert.ok(answer.status >= 200, what);
    for (const [name, pattern] of LEAKS) {
        // Input echoed back (an unknown id or tool name, as given) is not a leak; anything else is.
        if (pattern.test(answer.text) && !pattern.test(request.body ?? '') && !pattern.test(request.pathSuffix)) {
            assert.fail(`the answer holds ${name}; ${what}`);
        }
    }
    if (answer.status === 202) {
        assert.equal(answer.text, '', what);
        return;
    }
    if (answer.status !== 200) {
        // The host's own answers (401, 404, 405, 413 before the app) have no body; the app's are JSON-RPC errors.
        if (answer.text.length > 0) {
            const body = JSON.parse(answer.text) as { jsonrpc?: string; error?: { code?: unknown; message?: unknown } };
            assert.equal(body.jsonrpc, '2.0', what);
            assert.equal(typeof body.error?.code, 'number', what);
            assert.equal(typeof body.error?.message, 'string', what);
        }
        return;
    }
    const messages = messagesOf(answer);
    assert.ok(messages.length > 0, `a 200 carries an answer; ${what}`);
    for (const message of messages) {
        assert.equal(message.jsonrpc, '2.0', what);
        if ('error' in message) {
            assert.equal(typeof (message.error as { code?: unknown }).code, 'number', what);
            continue;
        }
        const result = message.result as Partial<CallToolResult> & { structuredContent?: { status?: string } };
        assert.ok(result && typeof result === 'object', what);
        // A tool call: either a tool error, or a status (not_found for an odd id; a cheap run at most).
        if (result.content !== undefined && result.isError !== true && result.structuredContent !== undefined) {
            assert.ok(['not_found', 'completed', 'running', 'failed'].includes(result.structuredContent.status ?? ''), what);
        }
    }
}

async function send(base: string, request: FuzzRequest): Promise<Answer> {
    const headers: Record<string, string> = { 'x-functions-key': KEY, ...request.headers };
    const res = await fetch(base + request.pathSuffix, {
        method: request.method,
        headers,
        body: request.body,
        signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Runs `requests` with at most `limit` in flight; collects failures instead of stopping at the first. */
async function sendAll(base: string, requests: readonly FuzzRequest[], limit: number): Promise<{ failures: string[]; statuses: Map<number, number> }> {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
        while (next < requests.length) {
            const request = requests[next++] as FuzzRequest;
            try {
                const answer = await send(base, request);
                statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
                checkAnswer(request, answer);
            } catch (error) {
                const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
                const message = error instanceof Error ? error.message : String(error);
                failures.push(message.startsWith(request.label) ? message : `${request.label} ${request.method} ${request.pathSuffix}: ${message}${cause}`);
            }
        }
    };
    await Promise.all(Array.from({ length: limit }, worker));
    return { failures, statuses };
}

describe('fuzz: malformed requests over HTTP never get a 5xx or leak internals', () => {
    let app: AppOnAzurite;
    let host: SpawnedHost;
    let mcpUrl: string;

    before(async () => {
        // As App Service Authentication sets it: callers with a principal header are tenants of their own.
        app = await startAppOnAzurite(
            'fuzz',
            { WAIT_BUDGET_SECONDS: '1', WEBSITE_AUTH_ENABLED: 'true' },
            { functionKey: KEY, args: ['--log-level', 'warning'] }
        );
        host = app.host;
        mcpUrl = app.mcpUrl.href;
    });
    after(async () => {
        await app?.stop();
    });

    test(`${COUNT} generated requests (seed ${SEED}) and oversized bodies, then a normal call still works`, async () => {
        const generator = new FuzzGenerator(SEED);
        const requests = [...generator.oversized(), ...generator.generate(COUNT)];
        assert.ok(requests.length >= 2000);
        const { failures, statuses } = await sendAll(mcpUrl, requests, CONCURRENCY);
        assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${requests.length} answers were wrong (seed ${SEED})`);
        // The mix reached every layer: the host (401, 404, 405), the endpoint (413) and the transport (400, 406, 415).
        for (const status of [200, 400, 401, 404, 405, 406, 413, 415]) assert.ok(statuses.has(status), `some answer was ${status}`);
        assert.equal([...statuses.keys()].filter((s) => s >= 500).length, 0);

        const client = new Client({ name: 'after-fuzz', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'x-functions-key': KEY } } }));
        try {
            const result = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 8, blocks: 2 } })) as CallToolResult;
            assert.notEqual(result.isError, true, JSON.stringify(result.content));
            type Answer = { status: string; workflow_id: string; result?: { blocks: unknown[] } };
            // The budget is short (the fuzz's own starts must not wait long), so the run may end after it: poll.
            const started = result.structuredContent as Answer;
            const status = await pollUntilDone(async (workflow_id) => {
                const polled = (await client.callTool({ name: 'get_mining_result', arguments: { workflow_id } })) as CallToolResult;
                return polled.structuredContent as Answer;
            }, started.workflow_id);
            assert.equal(status.status, 'completed');
            assert.equal(status.result?.blocks.length, 2);
        } finally {
            await client.close();
        }
        assert.doesNotMatch(host.stderr, /Unhandled error|uncaught/i, 'the host met nothing it did not handle');
    });
});

/** A JSON-RPC POST of about `bytes`, in chunks of 64 KiB with no Content-Length (so it goes out chunked), in either era. */
function chunkedBody(bytes: number, era: '2025' | '2026'): Buffer[] {
    const meta = era === '2026' ? '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},' : '';
    const head = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{${meta}"pad":"`);
    const chunks: Buffer[] = [head];
    for (let left = bytes - head.length; left > 0; left -= 65536) chunks.push(Buffer.alloc(Math.min(65536, left), 'a'));
    chunks.push(Buffer.from('"}}'));
    return chunks;
}

/** An answer within `ms`, or a rejection naming the case: a request that is never answered must fail, not hang. */
function answeredWithin(ms: number, label: string, pending: Promise<RawResponse>): Promise<RawResponse> {
    return Promise.race([pending, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms`)), ms).unref())]);
}

describeOnEachBackend('fuzz: chunked bodies over the limit', (backend) => {
    let app: AppOnAzurite;

    before(async () => {
        app = await startAppOnAzurite(`chunked${backend}`, { WAIT_BUDGET_SECONDS: '1' }, { durable: backend });
    });
    after(async () => {
        await app?.stop();
    });

    test('each gets 413 at once in both eras, its invocation ends, and the next call on the host is served', async () => {
        const cases: Array<[string, number, '2025' | '2026']> = [
            ['1 MiB + 1', 1024 * 1024 + 1, '2025'],
            ['1.05 MB', 1_050_000, '2025'],
            ['2 MiB, 2026 era', 2 * 1024 * 1024, '2026'],
            ['50 MiB streamed', 50 * 1024 * 1024, '2025'],
        ];
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const small = () => answeredWithin(20_000, 'a small call', rawRequest(app.mcpUrl.href, { method: 'POST', headers, chunks: chunkedBody(200, '2025') }));
        for (const [label, bytes, era] of cases) {
            const eraHeaders = era === '2026' ? { ...headers, 'mcp-protocol-version': '2026-07-28' } : headers;
            const answer = await answeredWithin(20_000, label, rawRequest(app.mcpUrl.href, { method: 'POST', headers: eraHeaders, chunks: chunkedBody(bytes, era) }));
            assert.equal(answer.status, 413, `${label}: ${answer.body.toString('utf8').slice(0, 200)}`);
            const error = (JSON.parse(answer.body.toString('utf8')) as { error: { message: string } }).error;
            assert.match(error.message, /Payload Too Large/, label);
            // The connection the host keeps to the app is still good: the next request is served.
            assert.equal((await small()).status, 200, `the call after ${label}`);
        }
        // Every invocation the host began, it ended (none pinned by a body it stopped reading).
        const unended = () => {
            const begun = [...app.host.stderr.matchAll(/Executing 'Functions\.mcp' \(.*Id=([0-9a-f-]+)\)/g)].map((m) => m[1]);
            const ended = new Set([...app.host.stderr.matchAll(/Executed 'Functions\.mcp' \(.*Id=([0-9a-f-]+)/g)].map((m) => m[1]));
            assert.ok(begun.length >= cases.length * 2, `${begun.length} invocations logged`);
            return begun.filter((id) => !ended.has(id));
        };
        await until(() => unended().length === 0, 'every invocation ended', 10_000, 100).catch(() => undefined);
        assert.deepEqual(unended(), []);
    });
});
