import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/**
 * A seeded, deterministic generator of malformed MCP requests for the fuzz test: broken JSON, oversized
 * and deeply nested bodies, wrong headers and methods, batches, unknown methods and tools, and wrong
 * arguments and odd ids for every tool. The same seed gives the same requests, so a failure can be
 * replayed with FUZZ_SEED=<seed>.
 *
 * Every request that could pass validation and start real work is kept cheap (difficulty 0, one block):
 * the point is bad input, not load.
 */

export interface FuzzRequest {
    /** What kind of mistake this is, for failure messages. */
    label: string;
    method: string;
    /** Appended to the MCP URL: '' or a query string or odd path suffix. */
    pathSuffix: string;
    headers: Record<string, string>;
    body: string | undefined;
}

/** mulberry32: tiny, fast, good enough to pick cases; not for anything secret. */
export function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const GOOD_HEADERS = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};

const TOOLS = ['start_mining', 'get_mining_result', 'cancel_mining'] as const;

/** Values of every wrong JSON type and edge, for any argument. */
const BAD_VALUES: readonly unknown[] = [
    null,
    true,
    false,
    '',
    '8',
    '1e3',
    'NaN',
    '-1',
    1.5,
    -1,
    -0.0001,
    33,
    999,
    2 ** 31,
    2 ** 53,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    [],
    [8],
    {},
    { value: 8 },
    'x'.repeat(5000),
];

/** Workflow ids that are malformed, hostile or merely unknown; all must be not_found or a tool error. */
const ODD_IDS: readonly unknown[] = [
    '',
    ' ',
    '../../admin',
    '..%2F..%2Fadmin',
    '%2F',
    'a/b',
    'a\\b',
    '?code=abc',
    'x?code=secret&taskHub=other',
    '#frag',
    'id with space',
    'ünïcödé',
    '😀😀😀',
    '\u0000',
    '\u202e\u0041',
    'a'.repeat(100),
    'a'.repeat(101),
    'a'.repeat(1000),
    'a'.repeat(1001),
    'A'.repeat(100_000),
    '00000000-0000-4000-8000-000000000000',
    'runtime/webhooks/durabletask/instances',
    "'; DROP TABLE x;--",
    "PartitionKey eq 'x'",
    '$lease',
    '%24lease',
    '<script>alert(1)</script>',
    '${process.env}',
    null,
    42,
    [],
    {},
    ['a'],
];

const JUNK_BODIES: readonly string[] = [
    '',
    ' ',
    'null',
    'true',
    '0',
    '"text"',
    '{',
    '}',
    '[',
    '[]',
    '{}',
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":{},"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":[1],"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"method":42}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":null}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_mining","arguments":"x"}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_mining","arguments":[1,2]}}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}',
    '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
    '\u0000\u0001\u0002',
    '\ufeff{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":{}}}}',
    'NaN',
    '{\'a\':1}',
];

const UNKNOWN_METHODS = ['', 'x', 'tools', 'tools/', 'tools/delete', 'resources/list', 'prompts/get', 'admin/shutdown', '../tools/list', 'TOOLS/LIST', 'rpc.discover', '\u0000'];

const UNKNOWN_TOOLS = ['', 'start', 'START_MINING', 'start_mining ', 'mine', '../start_mining', 'start_mining\u0000', 'x'.repeat(10_000), 'constructor', '__proto__'];

export class FuzzGenerator {
    readonly #random: () => number;
    #nextId = 1;

    constructor(readonly seed: number) {
        this.#random = prng(seed);
    }

    /** `count` requests, each of a randomly chosen kind. */
    generate(count: number): FuzzRequest[] {
        const kinds = [
            () => this.junkBody(),
            () => this.truncated(),
            () => this.randomBytes(),
            () => this.wrongHeaders(),
            () => this.batch(),
            () => this.unknownMethod(),
            () => this.unknownTool(),
            () => this.badArguments(),
            () => this.badArguments(),
            () => this.oddId(),
            () => this.oddId(),
            () => this.extraFields(),
            () => this.badProtocolVersion(),
            () => this.wrongHttpMethod(),
            () => this.oddPath(),
            () => this.nested(),
            () => this.taskOperation(),
            () => this.resourceRead(),
            () => this.badIdempotencyKey(),
            () => this.taskAugmented(),
            () => this.oddPrincipal(),
        ];
        const requests: FuzzRequest[] = [];
        for (let i = 0; i < count; i++) requests.push(this.#pick(kinds)());
        return requests;
    }

    /** A few bodies over the endpoint's 1 MiB limit, chosen rather than drawn: each is large. */
    oversized(): FuzzRequest[] {
        const big = (bytes: number) =>
            JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_mining_result', arguments: { workflow_id: 'a'.repeat(bytes) } } });
        return [
            this.#post('oversized 1 MiB + 1 KiB', big(1024 * 1024 + 1024)),
            this.#post('oversized 3 MiB', big(3 * 1024 * 1024)),
            this.#post('oversized junk 2 MiB', '['.repeat(2 * 1024 * 1024)),
        ];
    }

    // ---- kinds ----

    junkBody(): FuzzRequest {
        return this.#post('junk body', this.#pick(JUNK_BODIES));
    }

    truncated(): FuzzRequest {
        const whole = this.#call(this.#pick(TOOLS), { workflow_id: 'abc', difficulty: 0, blocks: 1 });
        return this.#post('truncated JSON', whole.slice(0, Math.floor(this.#random() * whole.length)));
    }

    randomBytes(): FuzzRequest {
        const length = 1 + Math.floor(this.#random() * 200);
        let text = '';
        for (let i = 0; i < length; i++) text += String.fromCharCode(Math.floor(this.#random() * 0x250));
        return this.#post('random characters', text);
    }

    wrongHeaders(): FuzzRequest {
        const body = this.#rpc('tools/list', {});
        const variants: Record<string, string>[] = [
            { ...GOOD_HEADERS, 'content-type': 'text/plain' },
            { ...GOOD_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
            { ...GOOD_HEADERS, 'content-type': 'multipart/form-data; boundary=x' },
            { ...GOOD_HEADERS, 'content-type': 'application/jsonx' },
            { ...GOOD_HEADERS, 'content-type': '' },
            { accept: GOOD_HEADERS.accept },
            { ...GOOD_HEADERS, accept: 'text/html' },
            { ...GOOD_HEADERS, accept: 'application/json' },
            { ...GOOD_HEADERS, accept: 'text/event-stream' },
            { ...GOOD_HEADERS, accept: '*/*' },
            { 'content-type': GOOD_HEADERS['content-type'] },
            { ...GOOD_HEADERS, 'content-encoding': 'gzip' },
            { ...GOOD_HEADERS, 'mcp-session-id': 'no-such-session' },
            { ...GOOD_HEADERS, 'x-functions-key': 'wrong-key' },
            {},
        ];
        return { label: 'wrong headers', method: 'POST', pathSuffix: '', headers: this.#pick(variants), body };
    }

    batch(): FuzzRequest {
        const members = () => {
            const n = Math.floor(this.#random() * 5);
            return Array.from({ length: n }, () => JSON.parse(this.#pick([this.#rpc('tools/list', {}), this.#oddIdCall(), this.#badArgumentsCall(), this.#rpc('no/such', {})])) as unknown);
        };
        const variants = [
            () => JSON.stringify(members()),
            () => '[]',
            () => JSON.stringify([this.#initialize(), this.#initialize()]),
            () => JSON.stringify([this.#initialize(), JSON.parse(this.#rpc('tools/list', {}))]),
            () => JSON.stringify(Array.from({ length: 101 }, () => ({ jsonrpc: '2.0', method: 'notifications/initialized' }))),
            () => JSON.stringify([1, 'two', null]),
        ];
        return this.#post('JSON-RPC batch', this.#pick(variants)());
    }

    unknownMethod(): FuzzRequest {
        return this.#post('unknown method', this.#rpc(this.#pick(UNKNOWN_METHODS), {}));
    }

    unknownTool(): FuzzRequest {
        return this.#post('unknown tool', this.#call(this.#pick(UNKNOWN_TOOLS), {}));
    }

    badArguments(): FuzzRequest {
        return this.#post('wrong argument type', this.#badArgumentsCall());
    }

    oddId(): FuzzRequest {
        return this.#post('odd workflow id', this.#oddIdCall());
    }

    /** Unknown argument fields, next to valid cheap ones: refused, or at worst a tiny run. */
    extraFields(): FuzzRequest {
        const tool = this.#pick(TOOLS);
        const base = tool === 'start_mining' ? { difficulty: 0, blocks: 1 } : { workflow_id: '00000000-0000-4000-8000-000000000000' };
        const extra = this.#pick([{ foo: 1 }, { workflowId: 'x' }, JSON.parse('{"__proto__":{"a":1}}') as Record<string, unknown>, { constructor: 'x' }, { difficulty_: 3 }, { '': null }]);
        return this.#post('unknown argument fields', this.#call(tool, { ...base, ...extra }));
    }

    badProtocolVersion(): FuzzRequest {
        const version = this.#pick(['1999-01-01', '', 'latest', '2025-13-45', 'x'.repeat(300), '2024-11-05 ; x']);
        return { label: 'bad protocol version', method: 'POST', pathSuffix: '', headers: { ...GOOD_HEADERS, 'mcp-protocol-version': version }, body: this.#rpc('tools/list', {}) };
    }

    wrongHttpMethod(): FuzzRequest {
        const method = this.#pick(['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']);
        const body = method === 'GET' || method === 'HEAD' ? undefined : this.#rpc('tools/list', {});
        return { label: `HTTP ${method}`, method, pathSuffix: '', headers: GOOD_HEADERS, body };
    }

    oddPath(): FuzzRequest {
        const suffix = this.#pick(['/', '/..', '/../admin', '%2F..%2F', '?code=', '?code=x&code=y', '/x?y=1', '//', '/%00', '?' + 'q'.repeat(2000)]);
        return { label: 'odd path', method: 'POST', pathSuffix: suffix, headers: GOOD_HEADERS, body: this.#rpc('tools/list', {}) };
    }

    nested(): FuzzRequest {
        const depth = this.#pick([65, 1000, 100_000]);
        const variants = [
            () => '['.repeat(depth) + ']'.repeat(depth),
            () => '['.repeat(depth),
            () => this.#call('start_mining', { difficulty: JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown, blocks: 1 }).replace('[]', '[' + '['.repeat(depth) + ']'.repeat(depth) + ']'),
            () => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
        ];
        return this.#post(`nested ${depth} deep`, this.#pick(variants)());
    }

    /** tasks/get, tasks/result, tasks/cancel on odd or foreign ids; tasks/list with odd cursors. */
    taskOperation(): FuzzRequest {
        const method = this.#pick(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'] as const);
        const params =
            method === 'tasks/list'
                ? this.#pick([{}, { cursor: '' }, { cursor: 'not-a-cursor' }, { cursor: 'eyJ4IjoxfQ' }, { cursor: 42 }, { cursor: 'A'.repeat(5000) }])
                : { taskId: this.#pick(ODD_IDS) };
        return this.#post('task operation', this.#rpc(method, params));
    }

    /** The workflow resource with odd ids, and URIs it does not serve. */
    resourceRead(): FuzzRequest {
        const uri = this.#pick([
            `mining://workflows/${String(this.#pick(ODD_IDS))}`,
            'mining://workflows/',
            'mining://workflows/../../etc/passwd',
            'mining://workflows/shared-00000000-0000-4000-8000-000000000000',
            'file:///etc/passwd',
            'http://127.0.0.1:7071/runtime/webhooks/durabletask/instances',
            '',
            42 as unknown as string,
        ]);
        return this.#post('resource read', this.#rpc(this.#pick(['resources/read', 'resources/subscribe', 'resources/list', 'resources/templates/list']), { uri }));
    }

    /** start_mining with keys of the wrong type or length, or odd but valid ones (a cheap run at most). */
    badIdempotencyKey(): FuzzRequest {
        const key = this.#pick(['', 'k'.repeat(256), 'k'.repeat(100_000), 42, null, [], {}, true, 'ключ', '../../x', '?code=x', '\u0000', ' '] as unknown[]);
        return this.#post('odd idempotency key', this.#call('start_mining', { difficulty: 0, blocks: 1, idempotency_key: key }));
    }

    /** A task-augmented call with odd task parameters (a valid one makes a cheap task). */
    taskAugmented(): FuzzRequest {
        const task = this.#pick([{ ttl: -1 }, { ttl: 'x' }, { ttl: 1e20 }, { ttl: null }, { ttl: 1.5 }, 'x', [], { ttl: 60_000 }, {}] as unknown[]);
        const tool = this.#pick(TOOLS);
        const args = tool === 'start_mining' ? { difficulty: 0, blocks: 1 } : { workflow_id: this.#pick(ODD_IDS) };
        return this.#post('task-augmented call', this.#rpc('tools/call', { name: tool, arguments: args, task }));
    }

    /** Odd App Service Authentication principal headers (the fuzz host trusts them, as Easy Auth would set them). */
    oddPrincipal(): FuzzRequest {
        const principal = this.#pick(['', ' ', '../admin', '%00', 'x\ty', 'p'.repeat(4000), 'shared', '00000000-0000-0000-0000-000000000000']);
        const headers = { ...GOOD_HEADERS, 'x-ms-client-principal-id': principal, 'x-ms-client-principal-idp': this.#pick(['aad', '', 'x'.repeat(300)]) };
        const body = this.#pick([this.#rpc('tasks/list', {}), this.#oddIdCall(), this.#call('start_mining', { difficulty: 0, blocks: 1, idempotency_key: 'same' })]);
        return { label: 'odd principal', method: 'POST', pathSuffix: '', headers, body };
    }

    // ---- helpers ----

    #badArgumentsCall(): string {
        const tool = this.#pick(TOOLS);
        const value = this.#pick(BAD_VALUES);
        if (tool === 'start_mining') {
            // One argument wrong, the other valid and cheap, so nothing heavy starts if a check were missing.
            return this.#random() < 0.5
                ? this.#call(tool, { difficulty: value, blocks: 1 })
                : this.#call(tool, { difficulty: 0, blocks: value });
        }
        return this.#call(tool, this.#random() < 0.9 ? { workflow_id: value } : {});
    }

    #oddIdCall(): string {
        const tool = this.#pick(['get_mining_result', 'cancel_mining'] as const);
        return this.#call(tool, { workflow_id: this.#pick(ODD_IDS) });
    }

    #initialize(): unknown {
        return { jsonrpc: '2.0', id: this.#nextId++, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } };
    }

    #call(name: string, args: Record<string, unknown>): string {
        return this.#rpc('tools/call', { name, arguments: args });
    }

    #rpc(method: string, params: unknown): string {
        return JSON.stringify({ jsonrpc: '2.0', id: this.#nextId++, method, params });
    }

    #post(label: string, body: string): FuzzRequest {
        return { label, method: 'POST', pathSuffix: '', headers: GOOD_HEADERS, body };
    }

    #pick<T>(items: readonly T[]): T {
        return items[Math.floor(this.#random() * items.length)] as T;
    }
}
