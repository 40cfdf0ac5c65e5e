import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '../../src/config';
import { JOB_NAMES, JOBS } from '../../src/jobs';
import { catalogFor } from '../../src/mcp/catalog';
import { declaresUiIn } from '../../src/mcp/era2026/appsExtension';
import { hasUiSession, initializeDeclaresUi, uiSessionId } from '../../src/mcp/sdk/uiSession2025';
import { APP_HTML_MIME_TYPE, declaresUi, UI_EXTENSION } from '../../src/mcp/uiExtension';
import { runFacts } from '../../src/mcp/workflowView';
import { MINING } from '../../src/jobs/mining/job';
import { SHARED_TENANT } from '../../src/workflow/tenant';
import { answerOf, envelope2026, raw2026Request } from '@mcp-mining/testkit';
import { endpointFor } from './helpers/endpoint';
import { FakeDurableClient, MemoryLog, RESULT } from './helpers/fakes';

/**
 * MCP Apps offered only to a client that declared it (src/mcp/uiExtension.ts): how each era learns that (the 2025
 * era's session id of its own form, the 2026 envelope), what such a client gets (the tools naming their views, the
 * ui:// resources, the run facts), and that any other client's answers are byte for byte what they were.
 */

const URL_ = 'http://localhost:7071/api/mcp';
const CONFIG = parseConfig({ TASKHUB_NAME: 'unittests', ENABLED_JOBS: 'mining,count_primes' });
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_HTML_MIME_TYPE] } } };
const CREATED = '2026-01-02T03:04:05.000Z';

function serve() {
    const client = new FakeDurableClient(() => ({ name: 'MineChain', runtimeStatus: 'Completed', input: { difficulty: 8, blocks: 3 }, output: RESULT, customStatus: { blocks_done: 3, blocks_total: 3 }, createdTime: new Date(CREATED), lastUpdatedTime: new Date(Date.parse(CREATED) + 1500) }));
    return endpointFor(CONFIG, { client, log: new MemoryLog(), tenant: SHARED_TENANT });
}

const rpc = (method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function post2025(body: string, headers: Record<string, string> = {}): Promise<{ response: Response; answer: Record<string, unknown> }> {
    const response = await serve()(
        new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers }, body })
    );
    const line = (await response.clone().text()).split('\n').find((l) => l.startsWith('data: '));
    return { response, answer: JSON.parse(line?.slice(6) ?? '{}') as Record<string, unknown> };
}

async function post2026(method: string, params: Record<string, unknown>, declareUi: boolean): Promise<Record<string, unknown>> {
    const envelope = envelope2026(false);
    const meta = declareUi ? { ...envelope, 'io.modelcontextprotocol/clientCapabilities': UI_CAPS } : envelope;
    // The revision's Mcp-Name header names a read's URI (raw2026Request sets it for tools and tasks only).
    const headers: Record<string, string> = typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {};
    const { answer } = await answerOf(await serve()(raw2026Request(new URL(URL_), { method, params: { ...params, _meta: meta } }, headers)), method);
    assert.equal(answer.kind, 'result', JSON.stringify(answer));
    return answer.kind === 'result' ? answer.result : {};
}

const initialize = (capabilities: unknown) => rpc('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: 't', version: '1' } });

describe('MCP Apps: who declared it', () => {
    it('has the identifier and MIME type of the extension itself', async () => {
        const ext = (await import('@modelcontextprotocol/ext-apps/server')) as { EXTENSION_ID: string; RESOURCE_MIME_TYPE: string };
        assert.deepEqual([UI_EXTENSION, APP_HTML_MIME_TYPE], [ext.EXTENSION_ID, ext.RESOURCE_MIME_TYPE]);
    });

    it('takes a declaration with the HTML profile among its mimeTypes, and nothing less', () => {
        assert.equal(declaresUi(UI_CAPS), true);
        for (const other of [undefined, null, {}, { extensions: {} }, { extensions: { [UI_EXTENSION]: {} } }, { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html'] } } }, { extensions: { [UI_EXTENSION]: true } }]) {
            assert.equal(declaresUi(other), false, JSON.stringify(other));
        }
        assert.equal(declaresUiIn({ params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': UI_CAPS } } }), true);
        assert.equal(declaresUiIn({ params: { _meta: envelope2026(true) } }), false);
        assert.equal(initializeDeclaresUi({ method: 'initialize', params: { capabilities: UI_CAPS } }), true);
        assert.equal(initializeDeclaresUi({ method: 'tools/list', params: { capabilities: UI_CAPS } }), false);
    });

    it('gives random session ids of one form, and knows only that form', () => {
        const [a, b] = [uiSessionId(), uiSessionId()];
        assert.notEqual(a, b);
        assert.equal(hasUiSession(new Headers({ 'mcp-session-id': a })), true);
        for (const other of ['', 'mcp-apps-', 'mcp-apps-x', `${a}x`, `x${a}`, '3f1c0b52-0e7e-4c9b-9a55-0c2f6f4c1d2e']) {
            assert.equal(hasUiSession(new Headers({ 'mcp-session-id': other })), false, other);
        }
    });
});

describe('MCP Apps in the 2025 era (stateless)', () => {
    it('a declaring initialize gets a session id of that form and the extension; any other gets neither, as before', async () => {
        const declared = await post2025(initialize(UI_CAPS));
        assert.equal(hasUiSession(new Headers({ 'mcp-session-id': declared.response.headers.get('mcp-session-id') ?? '' })), true);
        assert.deepEqual((declared.answer.result as { capabilities: { extensions?: unknown } }).capabilities.extensions, { [UI_EXTENSION]: {} });
        const plain = await post2025(initialize({}));
        assert.equal(plain.response.headers.get('mcp-session-id'), null);
        assert.equal((plain.answer.result as { capabilities: { extensions?: unknown } }).capabilities.extensions, undefined);
    });

    it('with that session id: the start tools name their view, the app-only status tools are listed, the views are listed and read, answers carry run facts', async () => {
        const session = { 'mcp-session-id': uiSessionId() };
        const { answer: list } = await post2025(rpc('tools/list'), session);
        const tools = (list.result as { tools: Array<{ name: string; _meta?: { ui?: unknown } }> }).tools;
        assert.deepEqual(
            tools.map((t) => [t.name, t._meta?.ui]),
            [
                ['start_mining', { resourceUri: 'ui://mining/workflow' }],
                ['get_mining_result', undefined],
                ['cancel_mining', undefined],
                ['mining_view_status', { visibility: ['app'] }],
                ['start_prime_count', { resourceUri: 'ui://count_primes/workflow' }],
                ['get_prime_count_result', undefined],
                ['cancel_prime_count', undefined],
                ['count_primes_view_status', { visibility: ['app'] }],
            ]
        );
        const { answer: listed } = await post2025(rpc('resources/list'), session);
        assert.deepEqual((listed.result as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri), ['ui://mining/workflow', 'ui://count_primes/workflow']);
        const { answer: read } = await post2025(rpc('resources/read', { uri: 'ui://mining/workflow' }), session);
        const [content] = (read.result as { contents: Array<{ mimeType: string; text: string; _meta: unknown }> }).contents;
        assert.equal(content?.mimeType, APP_HTML_MIME_TYPE);
        assert.match(content?.text ?? '', /^<!DOCTYPE html>/);
        assert.deepEqual(content?._meta, { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
        const { answer: got } = await post2025(rpc('tools/call', { name: 'mining_view_status', arguments: { workflow_id: 'shared-3f1c0b52-0e7e-4c9b-9a55-0c2f6f4c1d2e' } }), session);
        const facts = (got.result as { _meta?: { workflow?: Record<string, unknown> } })._meta?.workflow;
        assert.equal(facts?.created_at, CREATED);
        assert.equal(facts?.updated_at, '2026-01-02T03:04:06.500Z');
        assert.deepEqual([facts?.done, facts?.total], [3, 3]);
    });

    it('without it, or with a session id of another form: exactly the answers of a client that declared nothing', async () => {
        for (const [method, params] of [
            ['tools/list', {}],
            ['resources/list', {}],
            ['tools/call', { name: 'get_mining_result', arguments: { workflow_id: 'shared-3f1c0b52-0e7e-4c9b-9a55-0c2f6f4c1d2e' } }],
        ] as const) {
            const plain = await post2025(rpc(method, params));
            const other = await post2025(rpc(method, params), { 'mcp-session-id': 'some-other-session' });
            assert.deepEqual(other.answer, plain.answer, method);
            assert.doesNotMatch(JSON.stringify(plain.answer), /ui:\/\/|"_meta"/, method);
        }
        const { answer } = await post2025(rpc('resources/read', { uri: 'ui://mining/workflow' }));
        assert.equal((answer.error as { code: number }).code, -32602);
        const { answer: appOnly } = await post2025(rpc('tools/call', { name: 'mining_view_status', arguments: { workflow_id: 'shared-3f1c0b52-0e7e-4c9b-9a55-0c2f6f4c1d2e' } }));
        assert.deepEqual(appOnly.error, { code: -32602, message: 'Tool mining_view_status not found' }, 'the app-only tool is unknown to a client without views');
        const { answer: listed } = await post2025(rpc('tools/list'));
        assert.equal((listed.result as { tools: Array<{ name: string }> }).tools.some((t) => t.name.endsWith('_view_status')), false);
    });
});

describe('MCP Apps in the 2026-07-28 era (per-request envelope)', () => {
    it('a request that declares it gets the views; one that does not gets none', async () => {
        const withUi = (await post2026('tools/list', {}, true)).tools as Array<{ name: string; _meta?: { ui?: unknown } }>;
        assert.deepEqual(
            withUi.filter((t) => t._meta?.ui !== undefined).map((t) => [t.name, t._meta?.ui]),
            [
                ['start_mining', { resourceUri: 'ui://mining/workflow' }],
                ['mining_view_status', { visibility: ['app'] }],
                ['start_prime_count', { resourceUri: 'ui://count_primes/workflow' }],
                ['count_primes_view_status', { visibility: ['app'] }],
            ]
        );
        const without = (await post2026('tools/list', {}, false)).tools as Array<{ name: string; _meta?: unknown }>;
        assert.deepEqual(without.filter((t) => t._meta !== undefined), []);
        assert.equal(without.some((t) => t.name.endsWith('_view_status')), false, 'no app-only tool without views');
        assert.deepEqual(((await post2026('resources/list', {}, true)).resources as Array<{ uri: string }>).map((r) => r.uri), ['ui://mining/workflow', 'ui://count_primes/workflow']);
        assert.deepEqual((await post2026('resources/list', {}, false)).resources, []);
        const read = (await post2026('resources/read', { uri: 'ui://count_primes/workflow' }, true)).contents as Array<{ mimeType: string }>;
        assert.equal(read[0]?.mimeType, APP_HTML_MIME_TYPE);
        const discovered = await post2026('server/discover', {}, true);
        assert.deepEqual(Object.keys((discovered.capabilities as { extensions: object }).extensions).sort(), ['io.modelcontextprotocol/tasks', UI_EXTENSION]);
    });
});

describe('the views and their facts', () => {
    it('every job in the registry has its view built', () => {
        const catalog = catalogFor(parseConfig({ TASKHUB_NAME: 'unittests', ENABLED_JOBS: JOB_NAMES.join(',') }));
        assert.deepEqual(catalog.views.map((view) => view.uri), JOBS.map((job) => `ui://${job.name}/workflow`));
    });

    it('run facts: the backend times, the published progress in the job\'s terms, the server\'s clock', () => {
        const facts = runFacts(MINING, { runtimeStatus: 'Running', createdTime: new Date(CREATED), lastUpdatedTime: CREATED, customStatus: { blocks_done: 1, blocks_total: 4 } }, Date.parse(CREATED) + 9000);
        assert.deepEqual(facts, { created_at: CREATED, updated_at: CREATED, as_of: '2026-01-02T03:04:14.000Z', done: 1, total: 4, message: 'Mined block 1 of 4' });
        // Right after a start, nothing read yet: the planned progress, no times.
        assert.deepEqual(runFacts(MINING, undefined, 0, { blocks_done: 0, blocks_total: 2 }), { as_of: new Date(0).toISOString(), done: 0, total: 2, message: 'Mining block 1 of 2' });
    });
});
