import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogRecord } from '../logger';
import { RouteTable } from '../http/routeTable';
import type { RegisteredFunction } from '../worker/functionsCore';

/** A registration shaped like the library's for app.http(name, { route, methods, authLevel }). */
function httpFunction(name: string, trigger: Record<string, unknown>): RegisteredFunction {
    const bindings = {
        httpTrigger1: { type: 'httpTrigger', direction: 'in' as const, authLevel: 'anonymous', methods: ['GET', 'POST'], ...trigger },
        $return: { type: 'http', direction: 'out' as const },
    };
    return {
        metadata: { name, functionId: name, bindings, rawBindings: [], scriptFile: 'x.js' },
        callback: () => undefined,
    };
}

function table(functions: RegisteredFunction[], prefix = 'api', logs: LogRecord[] = []): RouteTable {
    return new RouteTable(functions, prefix, (record) => logs.push(record));
}

describe('route table', () => {
    it('defaults the route to the function name under the prefix', () => {
        const routes = table([httpFunction('Hello', {})]);
        const hit = routes.resolve('GET', '/api/hello');
        assert.equal(hit.kind, 'function');
        assert.equal(routes.resolve('GET', '/hello').kind, 'none');
        assert.equal(table([httpFunction('Hello', {})], '').resolve('GET', '/hello').kind, 'function');
    });

    it('answers 405 with the allowed methods when only the method is wrong', () => {
        const routes = table([
            httpFunction('getThing', { route: 'things/{id}', methods: ['GET'] }),
            httpFunction('deleteThing', { route: 'things/{id}', methods: ['DELETE'] }),
        ]);
        const get = routes.resolve('get', '/api/things/1');
        assert.ok(get.kind === 'function' && get.route.name === 'getThing');
        const del = routes.resolve('DELETE', '/api/things/1');
        assert.ok(del.kind === 'function' && del.route.name === 'deleteThing');
        assert.deepEqual(routes.resolve('PUT', '/api/things/1'), { kind: 'methodNotAllowed', allow: ['DELETE', 'GET'] });
        // HEAD is a method of its own, as in the host's HttpMethodRouteConstraint.
        assert.equal(routes.resolve('HEAD', '/api/things/1').kind, 'methodNotAllowed');
    });

    it('falls through to another route when a constraint fails', () => {
        const routes = table([
            httpFunction('byId', { route: 'items/{id:int}' }),
            httpFunction('byName', { route: 'items/{name}' }),
        ]);
        const byId = routes.resolve('GET', '/api/items/5');
        assert.ok(byId.kind === 'function' && byId.route.name === 'byId');
        assert.deepEqual(byId.params, { id: '5' });
        const byName = routes.resolve('GET', '/api/items/five');
        assert.ok(byName.kind === 'function' && byName.route.name === 'byName');
    });

    it('prefers the most specific route and warns once when the host would pick another', () => {
        const logs: LogRecord[] = [];
        const routes = table(
            [httpFunction('aCatchAll', { route: 'files/{*path}' }), httpFunction('zIndex', { route: 'files/index' })],
            'api',
            logs
        );
        for (let i = 0; i < 2; i++) {
            const hit = routes.resolve('GET', '/api/files/index');
            assert.ok(hit.kind === 'function' && hit.route.name === 'zIndex');
        }
        const warnings = logs.filter((log) => log.level === 'warning');
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]?.message ?? '', /would run 'aCatchAll'/);
    });

    it('skips a function whose template is invalid, with an error naming it', () => {
        const logs: LogRecord[] = [];
        const routes = table([httpFunction('broken', { route: 'a/{b' }), httpFunction('fine', {})], 'api', logs);
        assert.equal(routes.routes.length, 1);
        assert.ok(logs.some((log) => log.level === 'error' && log.functionName === 'broken'));
    });

    it('reads authLevel and methods from the trigger', () => {
        const [route] = table([httpFunction('secured', { authLevel: 'Function', methods: ['post'] })]).routes;
        assert.equal(route?.authLevel, 'function');
        assert.deepEqual(route?.methods, ['POST']);
    });
});
