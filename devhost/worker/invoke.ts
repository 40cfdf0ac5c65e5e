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
import { hookContext } from './loadApp';

export interface InvocationInit {
    functionId: string;
    inputData: RpcParameterBinding[];
    triggerMetadata?: Record<string, RpcTypedData>;
    invocationId?: string;
    retryContext?: RpcRetryContext;
}

export type InvocationOutcome =
    | { ok: true; invocationId: string; response: RpcInvocationResponse }
    | { ok: false; invocationId: string; error: RpcException };

/**
 * Runs one invocation through the programming model the way the worker's InvocationHandler does:
 * getArguments → preInvocation hooks → the function → postInvocation hooks → getResponse.
 * A thrown error (from the function, a hook or the library) becomes a failed outcome, never a crash.
 */
export class Invoker {
    constructor(
        private readonly core: FunctionsCore,
        private readonly sink: LogSink
    ) {}

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
