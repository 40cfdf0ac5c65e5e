import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { LogSink } from '../logger';
import type { RpcHttpData, RpcInvocationResponse } from '../worker/coreTypes';
import type { RegisteredFunction } from '../worker/functionsCore';
import type { Invoker } from '../worker/invoke';
import { sendBodyTooLarge, sendEmpty, sendText } from './hostResponses';
import { InvocationLog } from './invocationLog';
import { BodyTooLargeError, ClientGoneError, methodHasBody, readRequestBody } from './requestBody';
import type { RouteValues } from './routeTemplate';
import { toSetCookie } from './setCookie';
import type { RoutedRequest } from './frontDoorTypes';

/**
 * Non-stream mode: the whole request travels to the function inside the invocation (an RpcHttp trigger value)
 * and the whole response comes back in it, as with a host that has no HttpUri from the worker.
 */
export interface RpcHttpRequest extends RoutedRequest {
    invoker: Invoker;
    sink: LogSink;
}

export async function serveRpcHttp(request: RpcHttpRequest): Promise<void> {
    const { req, res, route, invocationId, sink } = request;
    let body: Buffer | undefined;
    if (methodHasBody(req.method)) {
        try {
            body = await readRequestBody(req, request.maxRequestBodyBytes);
        } catch (err) {
            if (err instanceof BodyTooLargeError) return sendBodyTooLarge(res);
            if (err instanceof ClientGoneError) return;
            throw err;
        }
    } else {
        // The library drops a GET/HEAD body anyway; drain it so the connection can be reused.
        req.resume();
    }

    const log = new InvocationLog(sink, route.name, invocationId);
    const http = toRpcHttpRequest(req, request.url, request.params, body);
    const outcome = await request.invoker.invoke({
        functionId: route.fn.metadata.functionId,
        invocationId,
        inputData: [{ name: route.triggerName, data: { http } }, ...request.extraInputs],
        triggerMetadata: {},
    });
    log.executed(outcome.ok);
    if (!outcome.ok) return sendEmpty(res, 500);
    writeRpcHttpResponse(res, route.fn, outcome.response, sink, invocationId);
}

/** The trigger value the host builds (GrpcMessageConversionExtensions.ToRpcHttp) for this request. */
export function toRpcHttpRequest(req: IncomingMessage, url: URL, params: RouteValues, body: Buffer | undefined): RpcHttpData {
    const http: RpcHttpData = {
        method: req.method ?? 'GET',
        url: url.href,
        headers: flattenHeaders(req.headers),
        query: flattenQuery(url.searchParams),
        params: { ...params },
    };
    // The host sends a body only when there is one; GET and HEAD never get one.
    if (body && body.length > 0) http.body = { bytes: body };
    return http;
}

/** Header names lower-case, repeated values joined, as a single string per name. */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
        if (value === undefined) continue;
        flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return flat;
}

/** Query values per name joined with ',' (ASP.NET's StringValues.ToString()). */
export function flattenQuery(query: URLSearchParams): Record<string, string> {
    const flat: Record<string, string> = {};
    for (const name of new Set(query.keys())) flat[name] = query.getAll(name).join(',');
    return flat;
}

/** `returnValue.http`, or the `http` value of an output binding of type http. */
export function httpResponseOf(fn: RegisteredFunction, response: RpcInvocationResponse): RpcHttpData | undefined {
    if (response.returnValue?.http) return response.returnValue.http;
    for (const output of response.outputData ?? []) {
        const type = fn.metadata.bindings[output.name]?.type;
        if (typeof type === 'string' && type.toLowerCase() === 'http' && output.data.http) return output.data.http;
    }
    return undefined;
}

/**
 * Writes the function's RpcHttp response as the host's RawScriptResult does: status (an unparsable one means
 * 200), headers as given, cookies as Set-Cookie, the body bytes. No HTTP output at all (the function returned
 * nothing) is the host's OkResult: 200 with an empty body.
 */
export function writeRpcHttpResponse(
    res: ServerResponse,
    fn: RegisteredFunction,
    response: RpcInvocationResponse,
    sink: LogSink,
    invocationId: string
): void {
    const http = httpResponseOf(fn, response);
    if (!http) return sendEmpty(res, 200);
    try {
        const status = /^\s*[+-]?\d+\s*$/.test(http.statusCode ?? '') ? Number(http.statusCode) : 200;
        const setCookies: string[] = [];
        for (const [name, value] of Object.entries(http.headers ?? {})) {
            if (name.toLowerCase() === 'set-cookie') setCookies.push(String(value));
            else res.setHeader(name, String(value));
        }
        setCookies.push(...(http.cookies ?? []).map(toSetCookie));
        if (setCookies.length > 0) res.setHeader('set-cookie', setCookies);
        const body = bodyBytes(http);
        res.statusCode = status;
        if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
            res.end();
            return;
        }
        res.setHeader('content-length', String(body.length));
        res.end(body);
    } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        sink({
            level: 'error',
            category: 'host',
            functionName: fn.metadata.name,
            invocationId,
            message: `The function's HTTP response could not be written: ${message}`,
        });
        if (!res.headersSent) {
            for (const name of res.getHeaderNames()) res.removeHeader(name);
            sendText(res, 500, 'The function returned an HTTP response that cannot be sent.');
        } else {
            res.destroy();
        }
    }
}

function bodyBytes(http: RpcHttpData): Buffer {
    const body = http.body;
    if (body?.bytes) return Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength);
    if (typeof body?.string === 'string') return Buffer.from(body.string, 'utf8');
    return Buffer.alloc(0);
}
