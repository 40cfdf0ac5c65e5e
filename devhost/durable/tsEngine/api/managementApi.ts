import type { IncomingMessage, ServerResponse } from 'node:http';
import { TERMINAL_STATUSES, type RuntimeStatus } from '../history';
import { OrchestrationExistsError, UnknownFunctionError, type ClientOperationResult, type Engine } from '../engine/engine';
import { statusPayload } from './statusPayload';
import { StorageRejectedError, type InstanceQuery, type InstanceRecord } from '../store/taskHubStore';
import type { WebhookUrls } from './webhookUrls';

const ENDED = new Set(['Completed', 'Failed', 'Terminated']);

/** The management API accepts small JSON bodies only (inputs and event payloads). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const RUNTIME_STATUSES: readonly RuntimeStatus[] = [
    'Running',
    'Completed',
    'ContinuedAsNew',
    'Failed',
    'Canceled',
    'Terminated',
    'Pending',
    'Suspended',
];

/**
 * A start on an instance that has not ended: the real extension (3.19.0, measured by
 * devhost/test/backendConformance.test.ts) answers 409 with the provider's message.
 */
function sendAlreadyExists(res: ServerResponse, err: OrchestrationExistsError): void {
    sendJson(res, 409, { Message: err.message });
}

class HttpError extends Error {
    constructor(
        readonly status: number,
        message: string
    ) {
        super(message);
    }
}

/**
 * The Durable extension's HTTP management API (HttpApiHandler): what `DurableClient` calls on `rpcBaseUrl`,
 * and what the public webhook URLs (createCheckStatusResponse) point at. Paths are relative to `base`.
 */
export class ManagementApi {
    constructor(
        private readonly engine: Engine,
        private readonly urls: WebhookUrls
    ) {}

    /** Serves `path` (already stripped of its base) or answers 404. Never throws. */
    async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
        try {
            await this.#route(req, res, path.replace(/^\/+|\/+$/g, ''), query);
        } catch (err) {
            if (err instanceof HttpError) {
                sendJson(res, err.status, { Message: err.message });
            } else {
                sendJson(res, 500, { Message: 'Something went wrong while processing your request', ExceptionMessage: String(err) });
            }
        }
    }

    async #route(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
        let segments: string[];
        try {
            segments = path.split('/').map((s) => decodeURIComponent(s));
        } catch {
            throw new HttpError(400, 'The path is not valid percent-encoding.');
        }
        const method = req.method ?? 'GET';
        const [controller, a, b, c] = segments;

        if (controller === 'orchestrators' && a && segments.length <= 3 && method === 'POST') {
            return this.#start(req, res, a, b || undefined, query);
        }
        if (controller === 'entities') {
            throw new HttpError(501, 'Durable entities are not supported by the local host (devhost).');
        }
        if (controller !== 'instances') throw new HttpError(404, 'Not found.');

        if (!a) {
            if (method === 'GET') return this.#list(req, res, query);
            if (method === 'DELETE') return this.#purgeMany(res, query);
            throw new HttpError(404, 'Not found.');
        }
        if (b === undefined) {
            if (method === 'GET') return this.#status(res, a, query);
            if (method === 'DELETE') return this.#purgeOne(res, a);
            throw new HttpError(404, 'Not found.');
        }
        if (method !== 'POST') throw new HttpError(404, 'Not found.');
        switch (b.toLowerCase()) {
            case 'raiseevent':
                if (!c) throw new HttpError(404, 'Not found.');
                return this.#raiseEvent(req, res, a, c);
            case 'terminate':
                return sendOperation(res, await this.engine.terminate(a, query.get('reason') ?? ''));
            case 'suspend':
                return sendOperation(res, await this.engine.suspend(a, query.get('reason') ?? ''));
            case 'resume':
                return sendOperation(res, await this.engine.resume(a, query.get('reason') ?? ''));
            case 'restart':
                return this.#restart(res, a, query);
            case 'rewind':
                throw new HttpError(501, 'Rewind is not supported by the local host (devhost).');
            default:
                throw new HttpError(404, 'Not found.');
        }
    }

    async #start(req: IncomingMessage, res: ServerResponse, name: string, instanceId: string | undefined, query: URLSearchParams): Promise<void> {
        const input = await readJsonBody(req);
        let record: InstanceRecord;
        try {
            record = await this.engine.startNew(name, instanceId, input, query.get('version') ?? '');
        } catch (err) {
            if (err instanceof UnknownFunctionError) {
                return sendJson(res, 400, { Message: 'One or more of the arguments submitted is incorrect', ExceptionMessage: err.message });
            }
            if (err instanceof OrchestrationExistsError) return sendAlreadyExists(res, err);
            if (err instanceof StorageRejectedError) throw new HttpError(400, `The orchestration cannot be stored: ${err.message}`);
            throw err;
        }
        const timeout = Number(query.get('timeout'));
        if (timeout > 0 && Number(query.get('pollingInterval')) > 0) return this.#waitThenRespond(res, record.instanceId, timeout);
        this.#checkStatusResponse(res, record.instanceId);
    }

    async #restart(res: ServerResponse, instanceId: string, query: URLSearchParams): Promise<void> {
        const record = await this.engine.getInstance(instanceId);
        if (!record) throw new HttpError(400, 'InstanceId does not match a valid orchestration instance.');
        const newId = query.get('restartWithNewInstanceId') === 'false' ? instanceId : undefined;
        try {
            const restarted = await this.engine.startNew(record.name, newId, record.input === null ? null : JSON.parse(record.input), record.version);
            this.#checkStatusResponse(res, restarted.instanceId);
        } catch (err) {
            if (err instanceof OrchestrationExistsError) return sendAlreadyExists(res, err);
            throw err;
        }
    }

    async #status(res: ServerResponse, instanceId: string, query: URLSearchParams): Promise<void> {
        const record = await this.engine.getInstance(instanceId);
        if (!record) return sendEmpty(res, 404);
        const showHistory = query.get('showHistory') === 'true';
        const payload = statusPayload(
            record,
            { showInput: query.get('showInput') !== 'false', showHistory, showHistoryOutput: query.get('showHistoryOutput') === 'true' },
            showHistory ? await this.engine.getHistory(record) : undefined
        );
        if (!TERMINAL_STATUSES.has(record.runtimeStatus)) {
            return sendJson(res, 202, payload, { Location: this.urls.statusQuery(instanceId), 'Retry-After': '5' });
        }
        const failedAs500 = record.runtimeStatus === 'Failed' && query.get('returnInternalServerErrorOnFailure') === 'true';
        sendJson(res, failedAs500 ? 500 : 200, payload);
    }

    async #list(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
        const filter: InstanceQuery = { ...timeFilter(query), ...statusFilter(query) };
        const prefix = query.get('instanceIdPrefix');
        if (prefix) filter.instanceIdPrefix = prefix;
        const top = Number(query.get('top'));
        if (Number.isInteger(top) && top > 0) filter.top = top;
        const token = req.headers['x-ms-continuation-token'];
        if (typeof token === 'string' && token) filter.continuationToken = token;

        const page = await this.engine.queryInstances(filter);
        const showInput = query.get('showInput') !== 'false';
        const body = page.instances.map((record) => statusPayload(record, { showInput, showHistory: false, showHistoryOutput: false }));
        // No token means the last page: DurableClient.getStatusAll asks again while the header has a value.
        sendJson(res, 200, body, page.continuationToken ? { 'x-ms-continuation-token': page.continuationToken } : {});
    }

    async #purgeOne(res: ServerResponse, instanceId: string): Promise<void> {
        // As the real extension: an instance that has not ended is refused with 412 Precondition Failed.
        const record = await this.engine.getInstance(instanceId);
        if (record && !ENDED.has(record.runtimeStatus)) return sendEmpty(res, 412);
        if (!(await this.engine.purge(instanceId))) return sendEmpty(res, 404);
        sendJson(res, 200, { instancesDeleted: 1 });
    }

    async #purgeMany(res: ServerResponse, query: URLSearchParams): Promise<void> {
        const times = timeFilter(query);
        if (!times.createdTimeFrom) throw new HttpError(400, "Please provide value for 'createdTimeFrom' parameter.");
        const filter: InstanceQuery = { createdTimeTo: new Date().toISOString(), ...times, ...statusFilter(query) };
        let deleted = 0;
        for (const record of (await this.engine.queryInstances(filter)).instances) {
            if (ENDED.has(record.runtimeStatus) && (await this.engine.purge(record.instanceId))) deleted++;
        }
        if (deleted === 0) return sendEmpty(res, 404);
        sendJson(res, 200, { instancesDeleted: deleted });
    }

    async #raiseEvent(req: IncomingMessage, res: ServerResponse, instanceId: string, eventName: string): Promise<void> {
        const record = await this.engine.getInstance(instanceId);
        if (!record) return sendEmpty(res, 404);
        if (TERMINAL_STATUSES.has(record.runtimeStatus)) return sendEmpty(res, 410);
        const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (mediaType !== 'application/json') throw new HttpError(400, 'Only application/json request content is supported');
        const data = await readJsonBody(req);
        sendOperation(res, await this.engine.raiseEvent(instanceId, eventName, data));
    }

    /** createAndWaitOnNewInstance: answers with the result if it comes within the timeout. */
    async #waitThenRespond(res: ServerResponse, instanceId: string, timeoutSeconds: number): Promise<void> {
        // The engine signals completion, so, like the extension with a poll-free provider, no polling interval applies.
        await this.engine.waitForFinish(instanceId, timeoutSeconds * 1000);
        const record = await this.engine.getInstance(instanceId);
        if (!record || !TERMINAL_STATUSES.has(record.runtimeStatus)) return this.#checkStatusResponse(res, instanceId);
        if (record.runtimeStatus === 'Completed') return sendRaw(res, 200, record.output ?? 'null');
        const payload = statusPayload(record, { showInput: true, showHistory: false, showHistoryOutput: false });
        sendJson(res, record.runtimeStatus === 'Failed' ? 500 : 200, payload);
    }

    #checkStatusResponse(res: ServerResponse, instanceId: string): void {
        const payload = this.urls.managementPayload(instanceId);
        sendJson(res, 202, payload, { Location: payload.statusQueryGetUri, 'Retry-After': '10' });
    }
}

function timeFilter(query: URLSearchParams): Pick<InstanceQuery, 'createdTimeFrom' | 'createdTimeTo'> {
    const filter: Pick<InstanceQuery, 'createdTimeFrom' | 'createdTimeTo'> = {};
    const from = Date.parse(query.get('createdTimeFrom') ?? '');
    const to = Date.parse(query.get('createdTimeTo') ?? '');
    if (!Number.isNaN(from)) filter.createdTimeFrom = new Date(from).toISOString();
    if (!Number.isNaN(to)) filter.createdTimeTo = new Date(to).toISOString();
    return filter;
}

function statusFilter(query: URLSearchParams): Pick<InstanceQuery, 'runtimeStatus'> {
    const wanted = query
        .getAll('runtimeStatus')
        .flatMap((v) => v.split(','))
        .map((v) => RUNTIME_STATUSES.find((s) => s.toLowerCase() === v.trim().toLowerCase()))
        .filter((s): s is RuntimeStatus => s !== undefined);
    return wanted.length > 0 ? { runtimeStatus: wanted } : {};
}

function sendOperation(res: ServerResponse, result: ClientOperationResult): void {
    sendEmpty(res, result === 'accepted' ? 202 : result === 'gone' ? 410 : 404);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    sendRaw(res, status, JSON.stringify(body), headers);
}

function sendRaw(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(text);
}

function sendEmpty(res: ServerResponse, status: number): void {
    res.writeHead(status, { 'content-length': '0' }).end();
}

/** The body as JSON; an empty body is null, as the extension reads it. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
    const body = await readBody(req);
    if (body.length === 0) return null;
    try {
        return JSON.parse(body) as unknown;
    } catch {
        throw new HttpError(400, 'Invalid JSON content');
    }
}

async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) throw new HttpError(413, 'The request body is too large.');
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
}
