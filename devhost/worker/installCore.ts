import Module = require('node:module');

const CORE_MODULE = '@azure/functions-core';

/**
 * Makes `require('@azure/functions-core')` return `api`, exactly as the Node.js worker does: the module is
 * not on disk; the worker provides it. It must run before anything loads `@azure/functions`, because the
 * library caches a failed lookup and then stays in "test mode" for the life of the process.
 * ESM apps are covered too: `@azure/functions` is CommonJS and calls `require` itself.
 */
export function installFunctionsCore(api: object): () => void {
    const original = Module.prototype.require;
    Module.prototype.require = new Proxy(original, {
        apply(target, self, args: unknown[]) {
            return args[0] === CORE_MODULE ? api : Reflect.apply(target, self, args);
        },
    });
    return () => {
        Module.prototype.require = original;
    };
}
