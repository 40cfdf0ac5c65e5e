import type { LogSink } from '../logger';
import { triggerOf } from '../worker/bindings';
import type { RegisteredFunction } from '../worker/functionsCore';
import {
    comparePrecedence,
    joinRoutePrefix,
    matchRouteTemplate,
    parseRouteTemplate,
    RouteTemplateError,
    splitRequestPath,
    type RouteTemplate,
    type RouteValues,
} from './routeTemplate';

/** One HTTP-triggered function as the router knows it. */
export interface FunctionRoute {
    fn: RegisteredFunction;
    name: string;
    triggerName: string;
    template: RouteTemplate;
    /** Upper-case methods; undefined accepts every method (a trigger with no `methods`). */
    methods: readonly string[] | undefined;
    authLevel: string;
    /** Position in the host's order: function names, case-insensitively (FunctionMetadataManager). */
    hostOrder: number;
}

export type RouteResolution =
    | { kind: 'function'; route: FunctionRoute; params: RouteValues }
    | { kind: 'methodNotAllowed'; allow: string[] }
    | { kind: 'none' };

export class RouteTable {
    readonly routes: readonly FunctionRoute[];
    readonly #sink: LogSink;
    readonly #warned = new Set<string>();

    constructor(functions: readonly RegisteredFunction[], routePrefix: string, sink: LogSink) {
        this.#sink = sink;
        const routes: FunctionRoute[] = [];
        const byName = [...functions].sort((a, b) => compareNames(a.metadata.name, b.metadata.name));
        byName.forEach((fn, hostOrder) => {
            const trigger = triggerOf(fn);
            if (trigger?.type.toLowerCase() !== 'httptrigger') return;
            const binding = trigger.binding;
            const route = typeof binding.route === 'string' && binding.route.length > 0 ? binding.route : fn.metadata.name;
            const text = joinRoutePrefix(routePrefix, route);
            try {
                routes.push({
                    fn,
                    name: fn.metadata.name,
                    triggerName: trigger.name,
                    template: parseRouteTemplate(text),
                    methods: methodsOf(binding.methods),
                    authLevel: typeof binding.authLevel === 'string' ? binding.authLevel.toLowerCase() : 'function',
                    hostOrder,
                });
            } catch (err) {
                if (!(err instanceof RouteTemplateError)) throw err;
                // The real host refuses such a function; here it is left unreachable and the rest of the app runs.
                sink({ level: 'error', category: 'host', functionName: fn.metadata.name, message: `${err.message} The function is not reachable.` });
            }
        });
        // Most specific first, as ASP.NET orders routes; the host's order breaks ties.
        this.routes = routes.sort((a, b) => comparePrecedence(a.template, b.template) || a.hostOrder - b.hostOrder);
    }

    resolve(method: string, pathname: string): RouteResolution {
        const path = splitRequestPath(pathname);
        const matches: { route: FunctionRoute; params: RouteValues }[] = [];
        for (const route of this.routes) {
            const params = matchRouteTemplate(route.template, path);
            if (params) matches.push({ route, params });
        }
        if (matches.length === 0) return { kind: 'none' };
        const upper = method.toUpperCase();
        const allowed = matches.filter(({ route }) => !route.methods || route.methods.includes(upper));
        const chosen = allowed[0];
        if (!chosen) {
            const allow = new Set(matches.flatMap(({ route }) => route.methods ?? []));
            return { kind: 'methodNotAllowed', allow: [...allow].sort() };
        }
        this.#warnIfHostWouldDiffer(chosen.route, allowed, pathname);
        return { kind: 'function', ...chosen };
    }

    /**
     * The Functions host tries routes in function-name order and takes the first match, not the most specific
     * one; say so when that would pick another function, so an app does not depend on this host's choice.
     */
    #warnIfHostWouldDiffer(chosen: FunctionRoute, allowed: { route: FunctionRoute }[], pathname: string): void {
        const hostChoice = allowed.reduce((a, b) => (b.route.hostOrder < a.route.hostOrder ? b : a)).route;
        if (hostChoice === chosen) return;
        const key = `${chosen.name}\n${hostChoice.name}`;
        if (this.#warned.has(key)) return;
        this.#warned.add(key);
        this.#sink({
            level: 'warning',
            category: 'host',
            message:
                `'${pathname}' matches the routes of '${chosen.name}' (${chosen.template.text}) and '${hostChoice.name}' ` +
                `(${hostChoice.template.text}). This host picks the more specific '${chosen.name}'; the Functions host ` +
                `tries routes in function-name order and would run '${hostChoice.name}'. Make the routes distinct.`,
        });
    }
}

function compareNames(a: string, b: string): number {
    const x = a.toUpperCase();
    const y = b.toUpperCase();
    return x < y ? -1 : x > y ? 1 : 0;
}

function methodsOf(value: unknown): string[] | undefined {
    if (!Array.isArray(value)) return undefined;
    const methods = value.filter((m): m is string => typeof m === 'string').map((m) => m.toUpperCase());
    // An empty list reads as "not restricted", like a missing one.
    return methods.length > 0 ? methods : undefined;
}
