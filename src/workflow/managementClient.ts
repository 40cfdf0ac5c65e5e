import { z } from 'zod';
import type { InstancePage, InstanceQuery, WorkflowClient } from './workflowClient';
import { DurableHttpError } from './durableHttpError';
import type { DurableStatusLike } from './durableStatus';

/**
 * The WorkflowClient over the Durable extension's HTTP management API, the API durable-functions'
 * DurableClient calls. durable-functions reports that API's answers as plain Errors whose only trace of
 * the HTTP status is in their message text, so the tools could tell "no such instance" from an outage only
 * by matching that text. This client makes the same requests (to the binding's rpcBaseUrl, or else to its
 * management URL templates) and fails with a DurableHttpError that carries the status.
 */

/** The fields of the durable client input binding (its JSON) that this client uses. */
const bindingSchema = z.object({
    rpcBaseUrl: z.string().nullish(),
    creationUrls: z.object({ createNewInstancePostUri: z.string() }),
    managementUrls: z.object({
        id: z.string(),
        statusQueryGetUri: z.string(),
        terminatePostUri: z.string(),
        purgeHistoryDeleteUri: z.string(),
    }),
});
type Binding = z.infer<typeof bindingSchema>;

const statusSchema = z.looseObject({
    instanceId: z.string().optional(),
    runtimeStatus: z.string(),
    createdTime: z.string().optional(),
    lastUpdatedTime: z.string().optional(),
    input: z.unknown(),
    output: z.unknown(),
    customStatus: z.unknown(),
});

/** Each request's own limit; the tools put tighter ones around the calls they make. */
const REQUEST_TIMEOUT_MS = 60_000;

/** Where each operation goes, from the binding (the same URLs durable-functions' DurableClient builds). */
class ManagementUrls {
    constructor(private readonly binding: Binding) {}

    private rpc(path: string, query: Record<string, string>): string | undefined {
        const base = this.binding.rpcBaseUrl;
        if (!base) return undefined;
        const url = new URL(path, base);
        for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
        return url.href;
    }

    /** A management URL template with the instance id filled in and `query` added. */
    private template(template: string, instanceId: string, query: Record<string, string>): string {
        const url = new URL(template.replace(this.binding.managementUrls.id, encodeURIComponent(instanceId)));
        for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
        return url.href;
    }

    start(orchestratorName: string, instanceId: string): string {
        const path = `orchestrators/${encodeURIComponent(orchestratorName)}/${encodeURIComponent(instanceId)}`;
        return (
            this.rpc(path, {}) ??
            this.binding.creationUrls.createNewInstancePostUri
                .replace('{functionName}', encodeURIComponent(orchestratorName))
                .replace('[/{instanceId}]', `/${encodeURIComponent(instanceId)}`)
        );
    }

    status(instanceId: string, query: Record<string, string>): string {
        return (
            this.rpc(`instances/${encodeURIComponent(instanceId)}`, query) ??
            this.template(this.binding.managementUrls.statusQueryGetUri, instanceId, query)
        );
    }

    list(query: Record<string, string>): string {
        return this.rpc('instances/', query) ?? this.template(this.binding.managementUrls.statusQueryGetUri, '', query);
    }

    terminate(instanceId: string, reason: string): string {
        return (
            this.rpc(`instances/${encodeURIComponent(instanceId)}/terminate`, { reason }) ??
            this.template(this.binding.managementUrls.terminatePostUri.replace('{text}', encodeURIComponent(reason)), instanceId, {})
        );
    }

    purge(instanceId: string): string {
        return (
            this.rpc(`instances/${encodeURIComponent(instanceId)}`, {}) ??
            this.template(this.binding.managementUrls.purgeHistoryDeleteUri, instanceId, {})
        );
    }
}

function safeJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

async function request(operation: string, url: string, init: RequestInit = {}, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    try {
        return await fetch(url, { ...init, signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) });
    } catch (error) {
        // No URL in the message: it may carry the system key.
        throw new Error(`${operation}: the Durable extension could not be reached (${(error as Error).name})`);
    }
}

async function json(operation: string, response: Response): Promise<unknown> {
    try {
        return await response.json();
    } catch {
        throw new Error(`${operation}: the Durable extension's answer (HTTP ${response.status}) is not JSON`);
    }
}

function toStatus(operation: string, body: unknown): DurableStatusLike {
    const parsed = statusSchema.safeParse(body);
    if (!parsed.success) throw new Error(`${operation}: the Durable extension's answer is not an orchestration status`);
    return parsed.data;
}

export class ManagementApiClient implements WorkflowClient {
    private readonly urls: ManagementUrls;

    constructor(binding: unknown) {
        const parsed = bindingSchema.safeParse(typeof binding === 'string' ? safeJson(binding) : binding);
        if (!parsed.success) throw new Error('The durable client input binding is missing or not in the expected shape.');
        this.urls = new ManagementUrls(parsed.data);
    }

    /** 202 when accepted. A start on an id that is still running answers 409 (measured on the real extension 3.19.0). */
    async startNew(orchestratorName: string, options: { instanceId: string; input: unknown }): Promise<string> {
        const operation = 'start';
        const response = await request(operation, this.urls.start(orchestratorName, options.instanceId), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: options.input === undefined ? '' : JSON.stringify(options.input),
        });
        if (response.status !== 200 && response.status !== 201 && response.status !== 202) {
            throw new DurableHttpError(operation, response.status);
        }
        const body = await json(operation, response);
        const id = (body as { id?: unknown } | null)?.id;
        return typeof id === 'string' ? id : options.instanceId;
    }

    /** 200 for an ended instance, 202 while it runs (both with the status), 404 for none. */
    async getStatus(instanceId: string, options: { showInput?: boolean } = {}): Promise<DurableStatusLike> {
        const operation = 'status read';
        const query: Record<string, string> = {};
        if (options.showInput !== undefined) query.showInput = String(options.showInput);
        const response = await request(operation, this.urls.status(instanceId, query));
        if (response.status !== 200 && response.status !== 202) throw new DurableHttpError(operation, response.status);
        const status = toStatus(operation, await json(operation, response));
        return {
            ...status,
            createdTime: status.createdTime === undefined ? undefined : new Date(status.createdTime),
            lastUpdatedTime: status.lastUpdatedTime === undefined ? undefined : new Date(status.lastUpdatedTime),
        };
    }

    /** 202 when queued, 410 when the instance had already ended (nothing to do), 404 for none. */
    async terminate(instanceId: string, reason: string): Promise<void> {
        const operation = 'terminate';
        const response = await request(operation, this.urls.terminate(instanceId, reason), { method: 'POST' });
        await response.body?.cancel();
        if (response.status !== 202 && response.status !== 410) throw new DurableHttpError(operation, response.status);
    }

    async listInstances(query: InstanceQuery, signal?: AbortSignal): Promise<InstancePage> {
        const operation = 'list query';
        const params: Record<string, string> = { top: String(query.top), showInput: String(query.showInput ?? false) };
        // An empty prefix is every instance: the parameter is left out rather than sent empty.
        if (query.instanceIdPrefix !== '') params.instanceIdPrefix = query.instanceIdPrefix;
        if (query.runtimeStatus !== undefined && query.runtimeStatus.length > 0) params.runtimeStatus = query.runtimeStatus.join(',');
        if (query.createdTimeFrom) params.createdTimeFrom = query.createdTimeFrom.toISOString();
        const headers: Record<string, string> = query.continuationToken ? { 'x-ms-continuation-token': query.continuationToken } : {};
        const response = await request(operation, this.urls.list(params), { headers }, signal);
        if (response.status !== 200) {
            await response.body?.cancel();
            throw new DurableHttpError(operation, response.status);
        }
        const body = await json(operation, response);
        if (!Array.isArray(body)) throw new Error(`${operation}: the Durable extension's answer is not a list`);
        const instances = body.map((item) => toStatus(operation, item));
        const token = response.headers.get('x-ms-continuation-token');
        return token === null || token === '' || token === 'null' ? { instances } : { instances, continuationToken: token };
    }

    /** 200 with the count; 404 when there is no such instance (nothing deleted). */
    async purgeInstanceHistory(instanceId: string): Promise<{ instancesDeleted: number }> {
        const operation = 'purge';
        const response = await request(operation, this.urls.purge(instanceId), { method: 'DELETE' });
        if (response.status === 404) {
            await response.body?.cancel();
            return { instancesDeleted: 0 };
        }
        if (response.status !== 200) throw new DurableHttpError(operation, response.status);
        const body = (await json(operation, response)) as { instancesDeleted?: unknown } | null;
        return { instancesDeleted: typeof body?.instancesDeleted === 'number' ? body.instancesDeleted : 0 };
    }
}
