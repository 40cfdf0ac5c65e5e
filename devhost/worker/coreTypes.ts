/**
 * The shapes of the `@azure/functions-core` seam: what the Node.js language worker gives the
 * `@azure/functions` library, and the protobuf-JSON (camelCase) messages that pass through it.
 * The authoritative typing is `types-core/index.d.ts` in Azure/azure-functions-nodejs-library, which is not
 * published to npm, so the local host declares the parts it uses here.
 */

export type RpcLogLevel = 'trace' | 'debug' | 'information' | 'warning' | 'error' | 'critical' | 'none';
export type RpcLogCategory = 'user' | 'system' | 'customMetric';

export interface RpcBindingInfo {
    type?: string;
    direction?: 'in' | 'out' | 'inout';
    dataType?: string;
    properties?: Record<string, string>;
    // The library spreads the user's binding options in (route, methods, authLevel, ...).
    [option: string]: unknown;
}

export interface RpcDuration {
    seconds?: number | string;
    nanos?: number;
}

export interface RpcRetryOptions {
    maxRetryCount?: number;
    delayInterval?: RpcDuration;
    minimumInterval?: RpcDuration;
    maximumInterval?: RpcDuration;
    retryStrategy?: 'exponentialBackoff' | 'fixedDelay';
}

/** What `registerFunction` receives from the library. */
export interface FunctionMetadata {
    name: string;
    functionId?: string;
    bindings: Record<string, RpcBindingInfo>;
    retryOptions?: RpcRetryOptions;
}

export interface RpcFunctionMetadata extends FunctionMetadata {
    functionId: string;
    rawBindings: string[];
    scriptFile: string;
    directory?: string;
}

export type FunctionCallback = (...args: unknown[]) => unknown;

export interface RpcHttpCookie {
    name?: string;
    value?: string;
    domain?: { value?: string } | null;
    path?: { value?: string } | null;
    expires?: { value?: { seconds?: number | string; nanos?: number } } | null;
    secure?: { value?: boolean } | null;
    httpOnly?: { value?: boolean } | null;
    sameSite?: 'none' | 'lax' | 'strict' | 'explicitNone' | null;
    maxAge?: { value?: number | string } | null;
}

export interface RpcHttpData {
    method?: string;
    url?: string;
    headers?: Record<string, string>;
    body?: RpcTypedData | null;
    params?: Record<string, string>;
    statusCode?: string;
    query?: Record<string, string>;
    enableContentNegotiation?: boolean;
    rawBody?: RpcTypedData | null;
    cookies?: RpcHttpCookie[];
}

export interface RpcTypedData {
    string?: string | null;
    json?: string | null;
    bytes?: Uint8Array | null;
    stream?: Uint8Array | null;
    http?: RpcHttpData | null;
    int?: number | null;
    double?: number | null;
}

export interface RpcParameterBinding {
    name: string;
    data: RpcTypedData;
}

export interface RpcException {
    source?: string;
    stackTrace?: string;
    message?: string;
}

export interface RpcRetryContext {
    retryCount?: number;
    maxRetryCount?: number;
    exception?: RpcException;
}

export interface RpcInvocationRequest {
    invocationId: string;
    functionId: string;
    inputData: RpcParameterBinding[];
    triggerMetadata: Record<string, RpcTypedData>;
    traceContext?: { traceParent?: string; traceState?: string; attributes?: Record<string, string> };
    retryContext?: RpcRetryContext;
}

export interface RpcInvocationResponse {
    invocationId?: string;
    outputData?: RpcParameterBinding[];
    returnValue?: RpcTypedData | null;
}

export type InvocationState = 'preInvocationHooks' | 'postInvocationHooks' | 'invocation';

export interface CoreInvocationContext {
    invocationId: string;
    request: RpcInvocationRequest;
    metadata: RpcFunctionMetadata;
    state?: InvocationState;
    log(level: RpcLogLevel, category: RpcLogCategory, message: string): void;
}

export interface InvocationModel {
    getArguments(): Promise<{ context: unknown; inputs: unknown[] }>;
    invokeFunction(context: unknown, inputs: unknown[], callback: FunctionCallback): Promise<unknown>;
    getResponse(context: unknown, result: unknown): Promise<RpcInvocationResponse>;
}

export type WorkerCapabilities = Record<string, string>;

export interface ProgrammingModel {
    name: string;
    version: string;
    getInvocationModel(coreCtx: CoreInvocationContext): InvocationModel | Promise<InvocationModel>;
    getCapabilities?(defaults: WorkerCapabilities): WorkerCapabilities | Promise<WorkerCapabilities>;
}

export type HookName = 'appStart' | 'appTerminate' | 'preInvocation' | 'postInvocation' | 'log';
export type HookCallback = (context: Record<string, unknown>) => unknown;

export interface Disposable {
    dispose(): unknown;
}
