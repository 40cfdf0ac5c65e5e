import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FunctionRoute } from './routeTable';
import type { RouteValues } from './routeTemplate';
import type { LogSink } from '../logger';
import type { RegisteredFunction } from '../worker/functionsCore';
import type { RpcParameterBinding } from '../worker/coreTypes';
import type { Invoker } from '../worker/invoke';

/** Serves a request the front door does not route to a function (e.g. the Durable webhooks); false = not mine. */
export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export interface FrontDoorOptions {
    invoker: Invoker;
    /** Every registered function; the front door serves those whose trigger is `httpTrigger`. */
    functions: readonly RegisteredFunction[];
    /** host.json `extensions.http.routePrefix` ("api" by default; "" for none). */
    routePrefix: string;
    /** The library's proxy address (`HttpUri` capability) when the app enabled HTTP streaming. */
    httpUri?: string;
    /** When set, functions with authLevel function/admin need it in `x-functions-key` or `?code=`. */
    functionKey?: string;
    /** Larger request bodies get 413 (the host setting FUNCTIONS_REQUEST_BODY_SIZE_LIMIT). */
    maxRequestBodyBytes: number;
    /** Values for the function's non-trigger input bindings, e.g. the durable client. */
    extraInputs: (fn: RegisteredFunction) => RpcParameterBinding[];
    /** Tried in order before function routes. */
    extraRoutes: readonly ExtraRoute[];
    sink: LogSink;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** One request matched to an HTTP function, as the two invocation modes (RPC and stream) receive it. */
export interface RoutedRequest {
    req: IncomingMessage;
    res: ServerResponse;
    /** The public URL of the request (Host header). */
    url: URL;
    route: FunctionRoute;
    params: RouteValues;
    invocationId: string;
    extraInputs: RpcParameterBinding[];
    maxRequestBodyBytes: number;
}
