import { randomUUID } from 'node:crypto';
import type { LogSink } from '../logger';
import type {
    CoreInvocationContext,
    RpcException,
    RpcFunctionMetadata,
    RpcInvocationRequest,
    RpcInvocationResponse,
    RpcLogCategory,
    RpcLogLevel,
    RpcParameterBinding,
    RpcRetryContext,
    RpcTypedData,
} from './coreTypes';
import type { FunctionsCore, RegisteredFunction } from './functionsCore';
import { InvocationHolds } from './holds';
import { hookContext } from './loadApp';
import { PLATFORM_EXCEPTION, platformFailureMessage, type PlatformFailure } from './platformFailures';

export interface InvocationInit {
    functionId: string;
    inputData: RpcParameterBinding[];
    triggerMetadata?: Record<string, RpcTypedData>;
    invocationId?: string;
    retryContext?: RpcRetryContext;
}

export type InvocationOutcome =
    | { ok: true; invocationId: string; response: RpcInvocationResponse }
    /** `platform`: the invocation failed for the platform's reason (worker exit, timeout), not the function's. */
    | { ok: false; invocationId: string; error: RpcException; platform?: PlatformFailure };

export interface InvokerOptions {
    /** host.json `functionTimeout` as written ("00:10:00") and in ms; no timeout when absent. */
    functionTimeout?: { text: string; ms: number };
}

interface InFlight {
    functionName: string;
    fail: (failure: PlatformFailure) => void;
}

/**
 * Runs one invocation through the programming model the way the worker's InvocationHandler does:
 * getArguments → preInvocation hooks → the function → postInvocation hooks → getResponse.
 * A thrown error (from the function, a hook or the library) becomes a failed outcome, never a crash.
 */
export class Invoker {
    /** In start order, so a fault takes the oldest. */
    readonly #inFlight = new Map<string, InFlight>();
    /** Faults for the next invocation (of a function, or of any) to start. */
    readonly #armed: { failure: PlatformFailure; functionName: string | undefined }[] = [];
    /** Functions whose invocations wait, in flight, for a test to release them (holds.ts). */
    readonly holds = new InvocationHolds();

    constructor(
        private readonly core: FunctionsCore,
        private readonly sink: LogSink,
        private readonly options: InvokerOptions = {}
    ) {}

    /**
     * Fails the oldest in-flight invocation (of `functionName`, when given) as the platform would, and returns
     * its id; undefined when none is in flight. The local host's fault mode (faultRoute.ts).
     */
    failInFlight(failure: PlatformFailure, functionName?: string): string | undefined {
        for (const [invocationId, running] of this.#inFlight) {
            if (functionName !== undefined && running.functionName !== functionName) continue;
            running.fail(failure);
            return invocationId;
        }
        return undefined;
    }

    /** Fails the next invocation (of `functionName`, when given) to start, as soon as it has started. */
    armFault(failure: PlatformFailure, functionName?: string): void {
        this.#armed.push({ failure, functionName });
    }

    find(functionId: string): RegisteredFunction | undefined {
        return this.core.functions.get(functionId);
    }

    async invoke(init: InvocationInit): Promise<InvocationOutcome> {
        const invocationId = init.invocationId ?? randomUUID();
        const registered = this.find(init.functionId);
        if (!registered) {
            return {
                ok: false,
                invocationId,
                error: { message: `Function code for '${init.functionId}' is not loaded and cannot be invoked.` },
            };
        }
        const model = this.core.programmingModel;
        if (!model) {
            return { ok: false, invocationId, error: { message: 'The app set no programming model.' } };
        }

        return this.#watched(invocationId, registered.metadata.name, () => this.#run(invocationId, init, registered, model));
    }

    /**
     * The invocation, unless the platform fails it first: functionTimeout, or an injected fault. Then, as in
     * the Functions host, the invocation fails at once with the host's own text. The real host would now
     * restart the worker process (failing its other invocations too); this host runs the app in its own
     * process and cannot, so the function runs on and its late result is discarded (logged). A held invocation
     * (holds.ts) is in flight while it waits: a fault fails it there, and then it never runs.
     */
    async #watched(invocationId: string, functionName: string, start: () => Promise<InvocationOutcome>): Promise<InvocationOutcome> {
        let fail: (failure: PlatformFailure) => void = () => undefined;
        const failed = new Promise<PlatformFailure>((resolve) => (fail = resolve));
        const timeout = this.options.functionTimeout;
        const timer = timeout ? setTimeout(() => fail('timeout'), timeout.ms) : undefined;
        this.#inFlight.set(invocationId, { functionName, fail });
        const armed = this.#armed.findIndex((fault) => fault.functionName === undefined || fault.functionName === functionName);
        if (armed >= 0) {
            const [fault] = this.#armed.splice(armed, 1);
            // Once the function has started: the platform fails an invocation that is running.
            if (fault) setImmediate(() => fail(fault.failure));
        }
        const run = this.holds.wait(invocationId, functionName).then((go) => (go ? start() : undefined));
        try {
            const first = await Promise.race([run.then((outcome) => ({ outcome })), failed.then((failure) => ({ failure }))]);
            if ('outcome' in first && first.outcome !== undefined) return first.outcome;
            const failure = 'failure' in first ? first.failure : 'worker-exit';
            this.holds.drop(invocationId);
            const message = platformFailureMessage(failure, functionName, timeout?.text ?? '00:10:00');
            const source = PLATFORM_EXCEPTION[failure];
            this.sink({
                level: 'error',
                category: 'system',
                functionName,
                invocationId,
                message: `Exception while executing function: Functions.${functionName}. ${source}: ${message}`,
            });
            void run.then((late) => {
                if (late === undefined) return;
                this.sink({
                    level: 'warning',
                    category: 'host',
                    functionName,
                    invocationId,
                    message: `The invocation failed (${failure}) before the function ended; its ${late.ok ? 'result' : 'error'} is discarded. The Functions host would have restarted the worker process instead.`,
                });
            });
            return { ok: false, invocationId, error: { message, source }, platform: failure };
        } finally {
            if (timer) clearTimeout(timer);
            this.#inFlight.delete(invocationId);
        }
    }

    async #run(
        invocationId: string,
        init: InvocationInit,
        registered: RegisteredFunction,
        model: NonNullable<FunctionsCore['programmingModel']>
    ): Promise<InvocationOutcome> {
        const request: RpcInvocationRequest = {
            invocationId,
            functionId: init.functionId,
            inputData: init.inputData,
            triggerMetadata: init.triggerMetadata ?? {},
            ...(init.retryContext ? { retryContext: init.retryContext } : {}),
        };
        const coreCtx = this.#coreContext(invocationId, request, registered.metadata);

        try {
            const invocationModel = await model.getInvocationModel(coreCtx);
            const hookData: Record<string, unknown> = {};
            const { context, inputs } = await invocationModel.getArguments();

            const pre = hookContext(hookData, this.core.appHookData, {
                invocationContext: context,
                functionCallback: registered.callback,
                inputs,
            });
            coreCtx.state = 'preInvocationHooks';
            try {
                for (const hook of this.core.hooks('preInvocation')) await hook(pre);
            } finally {
                coreCtx.state = undefined;
            }

            const post = hookContext(hookData, this.core.appHookData, {
                invocationContext: context,
                inputs: pre.inputs,
                result: null,
                error: null,
            });
            coreCtx.state = 'invocation';
            try {
                post.result = await invocationModel.invokeFunction(
                    context,
                    pre.inputs as unknown[],
                    pre.functionCallback as RegisteredFunction['callback']
                );
            } catch (err) {
                post.error = err;
            } finally {
                coreCtx.state = undefined;
            }

            coreCtx.state = 'postInvocationHooks';
            try {
                for (const hook of this.core.hooks('postInvocation')) await hook(post);
            } finally {
                coreCtx.state = undefined;
            }

            if (post.error !== null && post.error !== undefined) throw post.error;
            const response = await invocationModel.getResponse(context, post.result);
            return { ok: true, invocationId, response };
        } catch (err) {
            const error = toRpcException(err);
            this.sink({
                level: 'error',
                category: 'system',
                functionName: registered.metadata.name,
                invocationId,
                message: `Exception while executing function: Functions.${registered.metadata.name}. ${error.message ?? ''}`,
            });
            return { ok: false, invocationId, error };
        }
    }

    #coreContext(invocationId: string, request: RpcInvocationRequest, metadata: RpcFunctionMetadata): CoreInvocationContext {
        const sink = this.sink;
        return {
            invocationId,
            request,
            metadata,
            state: undefined,
            log(level: RpcLogLevel, category: RpcLogCategory, message: string) {
                if (level === 'none') return;
                sink({
                    level,
                    category: category === 'user' ? 'user' : 'system',
                    message,
                    functionName: metadata.name,
                    invocationId,
                });
            },
        };
    }
}

/** How the worker reports a failure: the error's message and stack, anything else stringified. */
export function toRpcException(err: unknown): RpcException {
    if (err instanceof Error) {
        return { message: err.message, ...(err.stack ? { stackTrace: err.stack } : {}), source: err.name };
    }
    return { message: typeof err === 'string' ? err : JSON.stringify(err) ?? String(err) };
}
