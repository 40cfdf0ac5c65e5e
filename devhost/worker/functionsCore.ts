import { basename, dirname } from 'node:path';
import type { LogSink } from '../logger';
import type {
    Disposable as CoreDisposable,
    FunctionCallback,
    FunctionMetadata,
    HookCallback,
    HookName,
    ProgrammingModel,
    RpcFunctionMetadata,
    RpcLogCategory,
    RpcLogLevel,
} from './coreTypes';

/** The worker version this host claims; `@azure/functions` only logs it. */
const WORKER_VERSION = '3.12.0';
/** A Functions host version new enough for HTTP streaming (4.28+) and log hooks (4.34+). */
const HOST_VERSION = '4.1040.0';

const HOOK_NAMES: readonly HookName[] = ['appStart', 'appTerminate', 'preInvocation', 'postInvocation', 'log'];

export interface RegisteredFunction {
    metadata: RpcFunctionMetadata;
    callback: FunctionCallback;
}

/** Mirrors the worker's Disposable: `from()` combines, `dispose()` runs once. */
class Disposable implements CoreDisposable {
    static from(...items: CoreDisposable[]): Disposable {
        return new Disposable(() => {
            for (const item of items) item.dispose();
        });
    }

    #callback: (() => unknown) | undefined;

    constructor(callback: () => unknown) {
        this.#callback = callback;
    }

    dispose(): unknown {
        const callback = this.#callback;
        this.#callback = undefined;
        return callback?.();
    }
}

/**
 * The state behind the `@azure/functions-core` module: the functions and hooks the app registers and the
 * programming model it sets. One instance per app; the object from `moduleApi()` is what `require` returns.
 */
export class FunctionsCore {
    readonly functions = new Map<string, RegisteredFunction>();
    readonly appHookData: Record<string, unknown> = {};
    /** hookData that only appStart and appTerminate hooks share. */
    readonly appLevelHookData: Record<string, unknown> = {};
    #hooks = new Map<HookName, HookCallback[]>();
    #programmingModel: ProgrammingModel | undefined;
    #indexingLocked = false;
    /** The entry point being loaded, so a registration can record its script file as the worker does. */
    currentEntryPoint: string | undefined;

    constructor(private readonly sink: LogSink) {}

    get programmingModel(): ProgrammingModel | undefined {
        return this.#programmingModel;
    }

    /** Called after the app has loaded: from then on, registering is an error, as in the worker. */
    lockIndexing(): void {
        this.#indexingLocked = true;
    }

    hooks(name: HookName): readonly HookCallback[] {
        return this.#hooks.get(name) ?? [];
    }

    moduleApi(): object {
        return {
            version: WORKER_VERSION,
            get hostVersion() {
                return HOST_VERSION;
            },
            registerFunction: (metadata: FunctionMetadata, callback: FunctionCallback) =>
                this.#registerFunction(metadata, callback),
            registerHook: (name: string, callback: HookCallback) => this.#registerHook(name, callback),
            setProgrammingModel: (model: ProgrammingModel) => {
                this.#programmingModel = model;
                this.sink({
                    level: 'debug',
                    category: 'system',
                    message: `Programming model set to ${model.name}@${model.version}`,
                });
            },
            getProgrammingModel: () => this.#programmingModel,
            log: (level: RpcLogLevel, category: RpcLogCategory, message: string) => {
                if (level === 'none') return;
                this.sink({ level, category: category === 'user' ? 'user' : 'system', message });
            },
            Disposable,
        };
    }

    #registerFunction(metadata: FunctionMetadata, callback: FunctionCallback): Disposable {
        if (this.#indexingLocked) {
            throw new Error('A function can only be registered during app startup.');
        }
        const functionId = metadata.functionId || metadata.name;
        if (this.functions.has(functionId)) {
            throw new Error(`A function with id "${functionId}" has already been registered.`);
        }
        const entryPoint = this.currentEntryPoint;
        const rpcMetadata: RpcFunctionMetadata = {
            ...metadata,
            functionId,
            rawBindings: Object.entries(metadata.bindings).map(([name, binding]) => JSON.stringify({ ...binding, name })),
            scriptFile: entryPoint ? basename(entryPoint) : 'unknown',
            ...(entryPoint ? { directory: dirname(entryPoint) } : {}),
        };
        this.functions.set(functionId, { metadata: rpcMetadata, callback });
        return new Disposable(() => {
            if (this.#indexingLocked) throw new Error('A function can only be disposed during app startup.');
            this.functions.delete(functionId);
        });
    }

    #registerHook(name: string, callback: HookCallback): Disposable {
        if (!(HOOK_NAMES as readonly string[]).includes(name)) {
            // The library turns a RangeError into "requires a newer host", as the worker does.
            throw new RangeError(`Unrecognized hook "${name}"`);
        }
        const list = this.#hooks.get(name as HookName) ?? [];
        list.push(callback);
        this.#hooks.set(name as HookName, list);
        return new Disposable(() => {
            const index = list.indexOf(callback);
            if (index >= 0) list.splice(index, 1);
        });
    }
}
