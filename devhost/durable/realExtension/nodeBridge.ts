import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { keepAliveAsKestrel } from '../../http/keepAlive';
import { foreignRequestRefusal } from '../../http/loopbackGuard';
import { activityInput, fromTypedData } from '../workerData';
import { triggerOf } from '../../worker/bindings';
import type { RpcParameterBinding, RpcTypedData } from '../../worker/coreTypes';
import type { RegisteredFunction } from '../../worker/functionsCore';
import type { Invoker } from '../../worker/invoke';
import type { PlatformFailure } from '../../worker/platformFailures';

/**
 * The Node end of the bridge: the .NET host's generated functions POST each trigger payload here, and
 * this runs the app's handler through the same invocation pipeline as every other trigger, with the
 * trigger data shaped as the Functions host gives it to the Node worker.
 */

const KIND_TRIGGER = { orchestrator: 'orchestrationTrigger', activity: 'activityTrigger', entity: 'entityTrigger' } as const;

const invocationSchema = z.object({
    kind: z.enum(['orchestrator', 'activity', 'entity']),
    name: z.string(),
    payload: z.unknown(),
    instanceId: z.string().nullable().optional(),
});

/** `platform`: the Functions host's failure (worker exit, timeout), which the .NET side throws as the host's exception. */
export type BridgeAnswer = { ok: true; result: unknown } | { ok: false; message: string; stack: string; platform?: PlatformFailure };

export interface NodeBridgeOptions {
    functions: readonly RegisteredFunction[];
    invoker: Invoker;
    /** The durable client bindings of a function (the extension's own client binding JSON). */
    extraInputs: (fn: RegisteredFunction) => RpcParameterBinding[];
}

export async function startNodeBridge(options: NodeBridgeOptions): Promise<{ server: Server; url: string }> {
    const byName = new Map(options.functions.map((fn) => [fn.metadata.name, fn]));
    const server = createServer((req, res) => {
        // It runs any of the app's functions on any input: never for a browser's page (loopbackGuard.ts).
        const refusal = foreignRequestRefusal(req.headers, true);
        if (refusal) return void req.resume().once('end', () => res.writeHead(403, { 'content-type': 'text/plain' }).end(refusal));
        void answer(req).then(
            (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
            (error: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error))
        );
    });
    // .NET keeps an idle pooled connection 60 s (SocketsHttpHandler.PooledConnectionIdleTimeout): the bridge keeps it longer.
    keepAliveAsKestrel(server);

    async function answer(req: IncomingMessage): Promise<BridgeAnswer> {
        if (req.method !== 'POST' || req.url !== '/invoke') throw new Error('Only POST /invoke is served here.');
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const call = invocationSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        const fn = byName.get(call.name);
        const trigger = fn && triggerOf(fn);
        if (!fn || trigger?.type !== KIND_TRIGGER[call.kind]) {
            return { ok: false, message: `The app has no ${call.kind} function named '${call.name}'.`, stack: '' };
        }
        const data: RpcTypedData = call.kind === 'activity' ? activityInput(call.payload) : { string: JSON.stringify(call.payload) };
        const outcome = await options.invoker.invoke({
            functionId: call.name,
            inputData: [{ name: trigger.name, data }, ...options.extraInputs(fn)],
            triggerMetadata: call.instanceId ? { instanceId: { string: call.instanceId } } : {},
        });
        if (outcome.ok) return { ok: true, result: fromTypedData(outcome.response.returnValue) ?? null };
        return {
            ok: false,
            message: outcome.error.message ?? '',
            stack: outcome.error.stackTrace ?? '',
            ...(outcome.platform ? { platform: outcome.platform } : {}),
        };
    }

    await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
    });
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
