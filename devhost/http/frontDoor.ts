import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrontDoorOptions, RequestListener } from './frontDoorTypes';
import { isAuthorized, presentedKey } from './functionKeys';
import { sendBodyTooLarge, sendEmpty, sendHomePage, sendText } from './hostResponses';
import { foreignRequestRefusal, isLoopbackAddress } from './loopbackGuard';
import { declaresTooLargeBody } from './requestBody';
import { RouteTable, type FunctionRoute } from './routeTable';
import type { RouteValues } from './routeTemplate';
import { serveRpcHttp } from './rpcHttp';
import { StreamProxy } from './streamProxy';

/**
 * The host's HTTP pipeline for the app: the loopback rule for the host's own routes (loopbackGuard.ts), extra
 * (system) routes first, then the function routes; 404 when nothing matches ("/" gets the home page), 405 when
 * only the method is wrong, 401 without a valid key, 413 for a body over the limit, then one invocation per
 * request, in stream or non-stream mode.
 */
export function createFrontDoor(options: FrontDoorOptions): RequestListener {
    const table = new RouteTable(options.functions, options.routePrefix, options.sink);
    const proxy = options.httpUri ? new StreamProxy(options.httpUri, options.invoker, options.sink) : undefined;
    logRoutes(table, options);

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
        const url = publicUrl(req);
        if (!url) return sendEmpty(res, 400);
        const resolution = table.resolve(req.method ?? 'GET', url.pathname);
        if (isHostPath(url.pathname) || resolution.kind !== 'function') {
            const onLoopback = isLoopbackAddress(req.socket.localAddress);
            const refusal = foreignRequestRefusal(req.headers, onLoopback) ?? keylessManagementRefusal(url, onLoopback, options.functionKey);
            if (refusal) {
                req.resume();
                return sendText(res, 403, refusal);
            }
        }
        for (const route of options.extraRoutes) {
            if (await route(req, res, url)) return;
        }
        if (resolution.kind === 'none') {
            req.resume();
            return url.pathname === '/' ? sendHomePage(res) : sendEmpty(res, 404);
        }
        if (resolution.kind === 'methodNotAllowed') {
            req.resume();
            return sendEmpty(res, 405, { allow: resolution.allow.join(', ') });
        }
        const { route, params } = resolution;
        if (!isAuthorized(route.authLevel, options.functionKey, presentedKey(req.headers, url.searchParams))) {
            req.resume();
            return sendEmpty(res, 401);
        }
        if (declaresTooLargeBody(req, options.maxRequestBodyBytes)) {
            req.resume();
            return sendBodyTooLarge(res);
        }
        await invoke(req, res, url, route, params);
    };

    const invoke = async (req: IncomingMessage, res: ServerResponse, url: URL, route: FunctionRoute, params: RouteValues) => {
        const common = {
            req,
            res,
            url,
            route,
            params,
            invocationId: randomUUID(),
            extraInputs: options.extraInputs(route.fn),
            maxRequestBodyBytes: options.maxRequestBodyBytes,
        };
        if (proxy) await proxy.serve(common);
        else await serveRpcHttp({ ...common, invoker: options.invoker, sink: options.sink });
    };

    return (req, res) => {
        // A client that resets mid-request must not take the process down with an unhandled 'error'.
        req.on('error', () => undefined);
        res.on('error', () => undefined);
        handle(req, res).catch((err: unknown) => {
            options.sink({
                level: 'error',
                category: 'host',
                message: `Unhandled error while serving ${req.method ?? ''} ${req.url ?? ''}: ${err instanceof Error ? err.message : String(err)}`,
            });
            if (!res.headersSent) sendText(res, 500, 'The host failed to handle the request.');
            else res.destroy();
        });
    };
}

/** Paths the Functions host keeps for itself (its webhooks and admin API), whatever the app's routes. */
const HOST_PATHS = ['/runtime/', '/admin/'];

function isHostPath(pathname: string): boolean {
    const lower = pathname.toLowerCase();
    return HOST_PATHS.some((prefix) => lower.startsWith(prefix));
}

export const KEYLESS_MANAGEMENT =
    'Forbidden: the Durable management routes are served on a non-loopback interface only with a key: start the host with --function-key.';

/**
 * Reached through another interface (--host 0.0.0.0), any name may lead to the host, so the Host rule cannot
 * tell a rebound page; the management routes, which read and end every tenant's workflows, then need the key.
 */
function keylessManagementRefusal(url: URL, onLoopback: boolean, functionKey: string | undefined): string | undefined {
    if (onLoopback || functionKey !== undefined) return undefined;
    return url.pathname.toLowerCase().startsWith('/runtime/webhooks/') ? KEYLESS_MANAGEMENT : undefined;
}

/**
 * The request's URL as the client addressed it (Host header), which is what a function sees as `request.url`.
 * Undefined for a target that is neither origin-form nor absolute-form.
 */
function publicUrl(req: IncomingMessage): URL | undefined {
    const target = req.url ?? '/';
    const local = `${req.socket.localAddress?.includes(':') ? `[${req.socket.localAddress}]` : req.socket.localAddress ?? 'localhost'}:${req.socket.localPort ?? 80}`;
    const host = req.headers.host && /^[A-Za-z0-9.\-_~[\]:%]+$/.test(req.headers.host) ? req.headers.host : local;
    try {
        if (target.startsWith('/')) return new URL(`http://${host}${target}`);
        const absolute = new URL(target);
        return absolute.protocol === 'http:' || absolute.protocol === 'https:' ? absolute : undefined;
    } catch {
        return undefined;
    }
}

function logRoutes(table: RouteTable, options: FrontDoorOptions): void {
    const lines = table.routes.map(
        (route) => `Mapped function route '${route.template.text}' [${route.methods?.join(',') ?? 'all'}] to '${route.name}'`
    );
    options.sink({
        level: 'debug',
        category: 'host',
        message: [lines.length > 0 ? 'Initializing function HTTP routes' : 'No HTTP routes mapped', ...lines].join('\n'),
    });
}
