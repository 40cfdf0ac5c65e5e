import type { RpcBindingInfo } from './coreTypes';
import type { RegisteredFunction } from './functionsCore';

export interface NamedBinding {
    name: string;
    type: string;
    binding: RpcBindingInfo;
}

/** The function's trigger: the one binding whose type ends in "Trigger", as the library decides. */
export function triggerOf(fn: RegisteredFunction): NamedBinding | undefined {
    for (const [name, binding] of Object.entries(fn.metadata.bindings)) {
        if (typeof binding.type === 'string' && /trigger$/i.test(binding.type)) return { name, type: binding.type, binding };
    }
    return undefined;
}

/** Input bindings other than the trigger (`extraInputs`), e.g. the durable client. */
export function extraInputBindings(fn: RegisteredFunction): NamedBinding[] {
    const trigger = triggerOf(fn);
    return Object.entries(fn.metadata.bindings)
        .filter(([name, binding]) => name !== trigger?.name && binding.direction === 'in' && typeof binding.type === 'string')
        .map(([name, binding]) => ({ name, type: binding.type as string, binding }));
}
