import { extraInputBindings } from '../worker/bindings';
import type { RpcParameterBinding } from '../worker/coreTypes';
import type { RegisteredFunction } from '../worker/functionsCore';

const CLIENT_BINDING_TYPES = new Set(['durableClient', 'orchestrationClient']);

/** True when the function declares a durable client input (v4 `durableClient`, v3 `orchestrationClient`). */
export function hasClientBinding(fn: RegisteredFunction): boolean {
    return extraInputBindings(fn).some((binding) => CLIENT_BINDING_TYPES.has(binding.type));
}

/**
 * The values of a function's durable client bindings: the backend's client binding JSON (its management
 * endpoint, task hub and webhook URLs), as the extension binds it for JavaScript. Both backends build
 * them here; they are the same for every invocation, so each function's are built once per binding.
 */
export function clientBindingInputs(fn: RegisteredFunction, bindingJson: string): RpcParameterBinding[] {
    const cached = cache.get(fn);
    if (cached?.bindingJson === bindingJson) return cached.inputs;
    const inputs = extraInputBindings(fn)
        .filter((binding) => CLIENT_BINDING_TYPES.has(binding.type))
        .map((binding) => ({ name: binding.name, data: { string: bindingJson } }));
    cache.set(fn, { bindingJson, inputs });
    return inputs;
}

const cache = new WeakMap<RegisteredFunction, { bindingJson: string; inputs: RpcParameterBinding[] }>();
