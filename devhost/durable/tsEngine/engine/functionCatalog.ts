/**
 * The app's Durable functions by name: which kind each one is (orchestrator, activity, entity), and the
 * inputs the host binds when it invokes one (its trigger's value first, then its other input bindings).
 */
import type { RpcParameterBinding, RpcTypedData } from '../../../worker/coreTypes';
import { triggerOf } from '../../../worker/bindings';
import type { RegisteredFunction } from '../../../worker/functionsCore';
import type { FunctionKind } from './replay';

export class FunctionCatalog {
    #kinds = new Map<string, { kind: FunctionKind; bindingName: string; fn: RegisteredFunction }>();

    constructor(
        functions: readonly RegisteredFunction[],
        /** Values for a function's other input bindings (an activity may take a durable client too). */
        private readonly extraInputs: (fn: RegisteredFunction) => RpcParameterBinding[]
    ) {
        for (const fn of functions) {
            const trigger = triggerOf(fn);
            const kind = trigger && kindOfTrigger(trigger.type);
            if (trigger && kind) this.#kinds.set(fn.metadata.name, { kind, bindingName: trigger.name, fn });
        }
    }

    kind(name: string): FunctionKind | undefined {
        return this.#kinds.get(name)?.kind;
    }

    /** The trigger's value, then the function's other inputs, as the host binds them. */
    inputs(functionName: string, trigger: RpcTypedData): RpcParameterBinding[] {
        const known = this.#kinds.get(functionName);
        if (!known) return [{ name: 'trigger', data: trigger }];
        return [{ name: known.bindingName, data: trigger }, ...this.extraInputs(known.fn)];
    }
}

function kindOfTrigger(type: string): FunctionKind | undefined {
    switch (type) {
        case 'orchestrationTrigger':
            return 'orchestrator';
        case 'activityTrigger':
            return 'activity';
        case 'entityTrigger':
            return 'entity';
        default:
            return undefined;
    }
}
