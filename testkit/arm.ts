/**
 * Evaluates a compiled ARM template (what `bicep build` writes and Azure receives) the way ARM would,
 * as far as that is possible without Azure: parameters, variables, nested deployments (modules) and
 * their outputs, copy loops, conditions and the pure template functions are evaluated; anything only
 * Azure knows (subscription(), uniqueString(), resourceId(), reference() to a resource, ...) becomes a
 * Runtime value that keeps the expression's text with its known parts filled in, so that tests can
 * still tell that two values are the same thing (the same identity's client id, say).
 *
 * It throws, naming the expression, on syntax or functions it does not know how to treat, rather than
 * guess. Only the shapes `bicep build` emits are supported (inner-scoped nested deployments).
 */

/** A value only Azure knows at deployment time; `text` is its expression with known parts evaluated. */
export class Runtime {
    constructor(readonly text: string) {}
    /** How a runtime value reads inside a string, e.g. format('st{0}', uniqueString(...)) -> st«uniqueString(...)». */
    toString(): string {
        return `«${this.text}»`;
    }
}

export type Value = string | number | boolean | null | Runtime | Value[] | { [key: string]: Value };
export type ValueObject = { [key: string]: Value };

export function isObject(value: Value | undefined): value is ValueObject {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Runtime);
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isJsonObject(value: Json | undefined): value is JsonObject {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// Expressions

type Node =
    | { kind: 'literal'; value: string | number }
    | { kind: 'call'; name: string; args: Node[] }
    | { kind: 'property'; target: Node; name: string }
    | { kind: 'index'; target: Node; index: Node };

/** Parses the inside of "[...]". */
export function parseExpression(source: string): Node {
    let pos = 0;
    const fail = (message: string): never => {
        throw new Error(`ARM expression "${source}": ${message} at ${pos}`);
    };
    const skip = (): void => {
        while (pos < source.length && /\s/.test(source[pos] ?? '')) pos++;
    };
    const expect = (char: string): void => {
        skip();
        if (source[pos] !== char) fail(`expected "${char}"`);
        pos++;
    };
    const primary = (): Node => {
        skip();
        const c = source[pos] ?? '';
        if (c === "'") {
            let value = '';
            pos++;
            for (;;) {
                if (pos >= source.length) fail('unterminated string');
                if (source[pos] === "'") {
                    if (source[pos + 1] === "'") {
                        value += "'";
                        pos += 2;
                        continue;
                    }
                    pos++;
                    return { kind: 'literal', value };
                }
                value += source[pos++];
            }
        }
        const number = /^-?\d+/.exec(source.slice(pos));
        if (number) {
            pos += number[0].length;
            return { kind: 'literal', value: Number(number[0]) };
        }
        const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(pos));
        if (!name) return fail('expected a string, a number or a function call');
        pos += name[0].length;
        expect('(');
        const args: Node[] = [];
        skip();
        if (source[pos] === ')') pos++;
        else {
            for (;;) {
                args.push(postfix());
                skip();
                if (source[pos] === ',') {
                    pos++;
                    continue;
                }
                expect(')');
                break;
            }
        }
        return { kind: 'call', name: name[0], args };
    };
    const postfix = (): Node => {
        let node = primary();
        for (;;) {
            skip();
            if (source[pos] === '.') {
                pos++;
                skip();
                const name = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(source.slice(pos));
                if (!name) fail('expected a property name');
                pos += name?.[0].length ?? 0;
                node = { kind: 'property', target: node, name: name?.[0] ?? '' };
            } else if (source[pos] === '[') {
                pos++;
                const index = postfix();
                expect(']');
                node = { kind: 'index', target: node, index };
            } else {
                return node;
            }
        }
    };
    const node = postfix();
    skip();
    if (pos !== source.length) fail('unexpected text');
    return node;
}

/** How a value reads as an argument in a Runtime value's text. */
export function render(value: Value): string {
    if (value instanceof Runtime) return value.text;
    if (typeof value === 'string') return `'${value}'`;
    if (value === null) return 'null';
    if (typeof value === 'object') return JSON.stringify(value, (_key, v: unknown) => (v instanceof Runtime ? String(v) : v));
    return String(value);
}

/** How a value reads inside a string (format, concat). */
function inline(value: Value): string {
    if (typeof value === 'string') return value;
    if (value instanceof Runtime) return String(value);
    if (typeof value === 'boolean') return value ? 'True' : 'False';
    if (typeof value === 'number') return String(value);
    return render(value);
}

function runtimeCall(name: string, args: Value[]): Runtime {
    return new Runtime(`${name}(${args.map(render).join(', ')})`);
}

// ---------------------------------------------------------------------------------------------------
// Deployments

/** A deployment the template refuses with fail(), as ARM would before creating anything. */
export class TemplateFailure extends Error {}

export interface Template {
    $schema: string;
    languageVersion?: string;
    parameters?: Record<string, JsonObject>;
    variables?: JsonObject;
    resources: JsonObject[] | Record<string, JsonObject>;
    outputs?: Record<string, JsonObject>;
}

export interface Resource {
    /** Symbolic name (languageVersion 2.0) or the index in the resources array. */
    symbol: string;
    type: string;
    apiVersion: string;
    /** The full name, e.g. 'func-api-«...»' or 'dts-«...»/mininghub' for a child resource. */
    name: Value;
    /** A reference to a resource deployed elsewhere (`existing` in Bicep): nothing is deployed. */
    existing: boolean;
    /** true, false, or a Runtime value for a condition only Azure can decide. */
    condition: Value;
    /** Every other top-level property, evaluated: location, tags, kind, sku, identity, properties, scope, ... */
    body: ValueObject;
    /** The deployment that declares this resource. */
    owner: Deployment;
    /** For a nested deployment (a Bicep module): that deployment. */
    module?: Deployment;
}

export interface Deployment {
    /** Symbolic names from the root deployment down, e.g. ['functionApp']; [] for the root. */
    path: string[];
    template: Template;
    parameters: Record<string, Value>;
    resources: Resource[];
    outputs: Record<string, Value>;
}

interface Context {
    deployment: Deployment;
    variables: Map<string, Value>;
    symbols: Map<string, JsonObject>;
    modules: Map<string, Deployment>;
    copy?: { name: string; index: number };
    where: string;
}

function templateResources(template: Template): [string, JsonObject][] {
    return Array.isArray(template.resources) ? template.resources.map((r, i) => [String(i), r]) : Object.entries(template.resources);
}

/**
 * Evaluates `template` with the given parameter values (the rest take their defaults), as ARM would
 * at deployment time, and returns the deployment with its nested deployments.
 */
export function deploy(template: Template, parameters: Record<string, Value>, path: string[] = []): Deployment {
    const deployment: Deployment = { path, template, parameters: {}, resources: [], outputs: {} };
    const where = path.length === 0 ? 'the root deployment' : `module ${path.join('/')}`;
    const context: Context = {
        deployment,
        variables: new Map(),
        symbols: new Map(templateResources(template)),
        modules: new Map(),
        where,
    };
    const declared = template.parameters ?? {};
    for (const name of Object.keys(parameters)) {
        if (!(name in declared)) throw new Error(`${where} gets parameter ${name}, which its template does not declare`);
    }
    for (const [name, declaration] of Object.entries(declared)) {
        if (name in parameters) deployment.parameters[name] = parameters[name] as Value;
        else if ('defaultValue' in declaration) deployment.parameters[name] = evaluate(declaration['defaultValue'] as Json, context);
        else throw new Error(`${where}: parameter ${name} has no value and no default`);
        const allowed = declaration['allowedValues'];
        const value = deployment.parameters[name] as Value;
        if (Array.isArray(allowed) && !(value instanceof Runtime) && !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))) {
            throw new Error(`${where}: parameter ${name} is ${render(value)}, which is not among its allowed values ${JSON.stringify(allowed)}`);
        }
    }
    for (const [symbol, raw] of templateResources(template)) {
        const copy = raw['copy'];
        if (isJsonObject(copy)) {
            const count = evaluate(copy['count'] ?? 0, context);
            if (typeof count !== 'number') throw new Error(`${where}: cannot expand the copy loop of ${symbol}: its count is ${render(count)}`);
            for (let index = 0; index < count; index++) {
                deployment.resources.push(evaluateResource(symbol, raw, { ...context, copy: { name: String(copy['name']), index } }));
            }
        } else {
            deployment.resources.push(evaluateResource(symbol, raw, context));
        }
    }
    for (const [name, output] of Object.entries(template.outputs ?? {})) {
        deployment.outputs[name] = evaluate(output['value'] ?? null, context);
    }
    return deployment;
}

function evaluateResource(symbol: string, raw: JsonObject, context: Context): Resource {
    const body: ValueObject = {};
    for (const [key, value] of Object.entries(raw)) {
        if (['copy', 'dependsOn', 'type', 'apiVersion', 'name', 'existing', 'condition'].includes(key)) continue;
        if (key === 'properties' && raw['type'] === 'Microsoft.Resources/deployments' && isJsonObject(value)) {
            const { template: _template, ...rest } = value;
            body[key] = evaluate(rest, context);
        } else {
            body[key] = evaluate(value, context);
        }
    }
    const resource: Resource = {
        symbol,
        type: String(raw['type']),
        apiVersion: String(raw['apiVersion']),
        name: evaluate(raw['name'] ?? null, context),
        existing: raw['existing'] === true,
        condition: 'condition' in raw ? evaluate(raw['condition'] as Json, context) : true,
        body,
        owner: context.deployment,
    };
    if (resource.type === 'Microsoft.Resources/deployments') resource.module = moduleOf(symbol, context);
    return resource;
}

/** The nested deployment a module resource creates, evaluated once. */
function moduleOf(symbol: string, context: Context): Deployment {
    const known = context.modules.get(symbol);
    if (known) return known;
    const raw = context.symbols.get(symbol);
    const properties = raw?.['properties'];
    if (!raw || !isJsonObject(properties) || !isJsonObject(properties['template'])) {
        throw new Error(`${context.where}: ${symbol} is not a nested deployment with a template`);
    }
    const scope = isJsonObject(properties['expressionEvaluationOptions']) ? properties['expressionEvaluationOptions']['scope'] : undefined;
    if (scope !== 'inner') throw new Error(`${context.where}: module ${symbol} is not inner-scoped; only inner scope is supported`);
    const parameters: Record<string, Value> = {};
    const given = properties['parameters'];
    for (const [name, parameter] of Object.entries(isJsonObject(given) ? given : {})) {
        if (!isJsonObject(parameter) || !('value' in parameter)) throw new Error(`${context.where}: module ${symbol} parameter ${name} has no value`);
        parameters[name] = evaluate(parameter['value'] as Json, context);
    }
    const module = deploy(properties['template'] as unknown as Template, parameters, [...context.deployment.path, symbol]);
    context.modules.set(symbol, module);
    return module;
}

/** Evaluates a JSON value of the template: "[...]" strings are expressions, "[[" escapes a literal "[". */
function evaluate(value: Json, context: Context): Value {
    if (typeof value === 'string') {
        if (value.startsWith('[[')) return value.slice(1);
        if (value.startsWith('[') && value.endsWith(']')) return evaluateNode(parseExpression(value.slice(1, -1)), context);
        return value;
    }
    if (Array.isArray(value)) return value.map((item) => evaluate(item, context));
    if (isJsonObject(value)) {
        const out: ValueObject = {};
        for (const [key, item] of Object.entries(value)) {
            const name = evaluate(key, context);
            out[typeof name === 'string' ? name : String(name)] = evaluate(item, context);
        }
        return out;
    }
    return value;
}

function property(target: Value, name: string, where: string): Value {
    if (target instanceof Runtime) return new Runtime(`${target.text}.${name}`);
    if (isObject(target)) {
        if (name in target) return target[name] as Value;
        const key = Object.keys(target).find((k) => k.toLowerCase() === name.toLowerCase());
        if (key !== undefined) return target[key] as Value;
    }
    throw new Error(`${where}: ${render(target)} has no property ${name}`);
}

function evaluateNode(node: Node, context: Context): Value {
    switch (node.kind) {
        case 'literal':
            return node.value;
        case 'property':
            return property(evaluateNode(node.target, context), node.name, context.where);
        case 'index': {
            const target = evaluateNode(node.target, context);
            const index = evaluateNode(node.index, context);
            if (target instanceof Runtime || index instanceof Runtime) return new Runtime(`${render(target)}[${render(index)}]`);
            if (Array.isArray(target) && typeof index === 'number') {
                if (index < 0 || index >= target.length) throw new Error(`${context.where}: index ${index} is outside ${render(target)}`);
                return target[index] as Value;
            }
            if (typeof index === 'string') return property(target, index, context.where);
            throw new Error(`${context.where}: cannot index ${render(target)} with ${render(index)}`);
        }
        case 'call':
            return call(node, context);
    }
}

/** Functions whose result Azure decides: evaluated to Runtime values. */
const RUNTIME_FUNCTIONS = new Set([
    'subscription',
    'resourceGroup',
    'tenant',
    'deployer',
    'deployment',
    'environment',
    'managementGroup',
    'uniqueString',
    'guid',
    'newGuid',
    'utcNow',
    'resourceId',
    'subscriptionResourceId',
    'tenantResourceId',
    'extensionResourceId',
    'managementGroupResourceId',
    'listKeys',
    'list',
    'pickZones',
    'providers',
]);

function call(node: Extract<Node, { kind: 'call' }>, context: Context): Value {
    const { where } = context;
    const name = node.name;
    const lower = name.toLowerCase();
    if (lower === 'parameters' || lower === 'variables') {
        const key = evaluateNode(node.args[0] ?? { kind: 'literal', value: '' }, context);
        if (typeof key !== 'string') throw new Error(`${where}: ${name}() needs a literal name`);
        return lower === 'parameters' ? parameterValue(key, context) : variableValue(key, context);
    }
    if (lower === 'reference') return reference(node, context);
    if (lower === 'copyindex') {
        if (!context.copy) throw new Error(`${where}: copyIndex() outside a copy loop`);
        const args = node.args.map((a) => evaluateNode(a, context));
        const offset = args.find((a): a is number => typeof a === 'number') ?? 0;
        return context.copy.index + offset;
    }
    if (lower === 'if') {
        // ARM evaluates only the branch the condition picks, so a fail() in the other one is not raised.
        const condition = node.args[0] === undefined ? null : evaluateNode(node.args[0], context);
        if (!(condition instanceof Runtime)) {
            const branch = truthy(condition, name, where) ? node.args[1] : node.args[2];
            return branch === undefined ? null : evaluateNode(branch, context);
        }
    }
    const args = node.args.map((a) => evaluateNode(a, context));
    if (lower === 'fail') throw new TemplateFailure(`${where}: the template fails the deployment: ${args.map(inline).join(' ')}`);
    if (RUNTIME_FUNCTIONS.has(name)) return runtimeCall(name, args);
    return pure(name, args, where);
}

function parameterValue(name: string, context: Context): Value {
    if (!(name in context.deployment.parameters)) throw new Error(`${context.where}: no parameter ${name}`);
    return context.deployment.parameters[name] as Value;
}

function variableValue(name: string, context: Context): Value {
    const known = context.variables.get(name);
    if (known !== undefined) return known;
    const variables = context.deployment.template.variables ?? {};
    if (!(name in variables)) throw new Error(`${context.where}: no variable ${name}`);
    if (name === 'copy') throw new Error(`${context.where}: variable copy loops are not supported`);
    const value = evaluate(variables[name] as Json, context);
    context.variables.set(name, value);
    return value;
}

/**
 * reference('symbol') to a module gives its outputs ({ outputs: { x: { value } } }); to a resource, or to
 * a resource id, a Runtime value named after the resource's type and name.
 */
function reference(node: Extract<Node, { kind: 'call' }>, context: Context): Value {
    const target = evaluateNode(node.args[0] ?? { kind: 'literal', value: '' }, context);
    if (typeof target === 'string' && context.symbols.has(target)) {
        const raw = context.symbols.get(target) as JsonObject;
        if (raw['type'] === 'Microsoft.Resources/deployments') {
            const module = moduleOf(target, context);
            return { outputs: Object.fromEntries(Object.entries(module.outputs).map(([k, v]) => [k, { value: v }])) };
        }
        if (isJsonObject(raw['copy'])) throw new Error(`${context.where}: reference() to the loop ${target} is not supported`);
        return new Runtime(`reference(${String(raw['type'])}/${inline(evaluate(raw['name'] ?? null, context))})`);
    }
    return new Runtime(`reference(${render(target)})`);
}

function truthy(value: Value, name: string, where: string): boolean {
    if (typeof value !== 'boolean') throw new Error(`${where}: ${name}() needs booleans, got ${render(value)}`);
    return value;
}

function pure(name: string, args: Value[], where: string): Value {
    const anyRuntime = args.some((a) => a instanceof Runtime);
    const [a, b, c] = args;
    switch (name) {
        case 'true':
            return true;
        case 'false':
            return false;
        case 'null':
            return null;
        case 'format': {
            if (typeof a !== 'string') throw new Error(`${where}: format() needs a literal format string`);
            return a.replace(/\{(\d+)(?::[^}]*)?\}/g, (_m, i: string) => {
                const arg = args[Number(i) + 1];
                if (arg === undefined) throw new Error(`${where}: format('${a}') has no argument ${i}`);
                return inline(arg);
            });
        }
        case 'concat':
            if (args.length > 0 && args.every(Array.isArray)) return (args as Value[][]).flat(1);
            if (args.some((x) => Array.isArray(x) || isObject(x))) return runtimeOrFail();
            return args.map(inline).join('');
        case 'string':
            if (a instanceof Runtime) return runtimeCall(name, args);
            if (typeof a === 'string') return a;
            if (typeof a === 'number' || typeof a === 'boolean') return String(a);
            return render(a ?? null);
        case 'int':
            if (a instanceof Runtime) return runtimeCall(name, args);
            return Number(a);
        case 'createArray':
            return args;
        case 'createObject': {
            const out: ValueObject = {};
            for (let i = 0; i + 1 < args.length; i += 2) out[inline(args[i] as Value)] = args[i + 1] as Value;
            return out;
        }
        case 'union': {
            if (anyRuntime) return runtimeCall(name, args);
            if (args.every(isObject)) return Object.assign({}, ...args) as ValueObject;
            if (args.every(Array.isArray)) return [...new Set((args as Value[][]).flat(1))];
            return runtimeOrFail();
        }
        case 'uriComponent':
            if (a instanceof Runtime) return runtimeCall(name, args);
            return encodeURIComponent(String(a));
        case 'split':
            if (anyRuntime) return runtimeCall(name, args);
            if (typeof a !== 'string' || typeof b !== 'string') throw new Error(`${where}: split() needs a string and a delimiter`);
            return a.split(b);
        case 'replace':
            if (anyRuntime) return runtimeCall(name, args);
            return String(a).split(String(b)).join(String(c));
        case 'join':
            if (anyRuntime) return runtimeCall(name, args);
            if (!Array.isArray(a)) throw new Error(`${where}: join() needs an array`);
            return a.map(inline).join(String(b));
        case 'intersection': {
            if (anyRuntime) return runtimeCall(name, args);
            if (!args.every(Array.isArray)) return runtimeOrFail();
            const [first = [], ...rest] = args as Value[][];
            const key = (v: Value) => JSON.stringify(v);
            return [...new Map(first.map((v) => [key(v), v])).values()].filter((v) => rest.every((r) => r.some((x) => key(x) === key(v))));
        }
        case 'contains':
            if (anyRuntime) return runtimeCall(name, args);
            if (Array.isArray(a)) return a.some((x) => JSON.stringify(x) === JSON.stringify(b));
            if (typeof a === 'string') return a.includes(String(b));
            if (isObject(a)) return Object.keys(a).some((k) => k.toLowerCase() === String(b).toLowerCase());
            return runtimeOrFail();
        case 'toLower':
        case 'toUpper':
            if (a instanceof Runtime) return runtimeCall(name, args);
            return name === 'toLower' ? String(a).toLowerCase() : String(a).toUpperCase();
        case 'empty':
            if (a instanceof Runtime) return runtimeCall(name, args);
            if (a === null) return true;
            if (typeof a === 'string' || Array.isArray(a)) return a.length === 0;
            if (isObject(a)) return Object.keys(a).length === 0;
            return false;
        case 'length':
            if (a instanceof Runtime) return runtimeCall(name, args);
            if (typeof a === 'string' || Array.isArray(a)) return a.length;
            if (isObject(a)) return Object.keys(a).length;
            return runtimeOrFail();
        case 'if':
            if (a instanceof Runtime) return runtimeCall(name, args);
            return truthy(a ?? null, name, where) ? (b ?? null) : (c ?? null);
        case 'not':
            if (a instanceof Runtime) return runtimeCall(name, args);
            return !truthy(a ?? null, name, where);
        case 'and':
        case 'or':
            if (anyRuntime) return runtimeCall(name, args);
            return name === 'and' ? args.every((x) => truthy(x, name, where)) : args.some((x) => truthy(x, name, where));
        case 'equals':
            if (anyRuntime) return runtimeCall(name, args);
            return JSON.stringify(a) === JSON.stringify(b);
        case 'greater':
        case 'less':
        case 'greaterOrEquals':
        case 'lessOrEquals': {
            if (anyRuntime) return runtimeCall(name, args);
            if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) throw new Error(`${where}: ${name}() needs two numbers or two strings`);
            const x = a as number | string;
            const y = b as number | string;
            return { greater: x > y, less: x < y, greaterOrEquals: x >= y, lessOrEquals: x <= y }[name];
        }
        default:
            throw new Error(`${where}: the template calls ${name}(), which this evaluator does not know; add it to arm.ts`);
    }
    function runtimeOrFail(): Value {
        if (anyRuntime) return runtimeCall(name, args);
        throw new Error(`${where}: ${name}() with arguments ${args.map(render).join(', ')} is not supported`);
    }
}

// ---------------------------------------------------------------------------------------------------
// Looking things up

/** Every resource of the deployment and of its nested deployments, depth first. */
export function allResources(deployment: Deployment): Resource[] {
    return deployment.resources.flatMap((r) => [r, ...(r.module ? allResources(r.module) : [])]);
}

/** The resources of one type that the deployment creates (existing references left out). */
export function deployed(deployment: Deployment, type: string): Resource[] {
    return allResources(deployment).filter((r) => !r.existing && r.type.toLowerCase() === type.toLowerCase());
}

/** The nested deployment with this symbolic name (a module of main.bicep, e.g. 'functionApp'). */
export function moduleNamed(deployment: Deployment, symbol: string): Deployment {
    const found = deployment.resources.find((r) => r.symbol === symbol)?.module;
    if (!found) throw new Error(`${deployment.path.join('/') || 'the root deployment'} has no module ${symbol}`);
    return found;
}

/** Follows a path of keys into an evaluated value, case-insensitively as ARM does. */
export function at(value: Value | undefined, path: readonly string[]): Value | undefined {
    let node = value;
    for (const key of path) {
        if (!isObject(node)) return undefined;
        const match = Object.keys(node).find((k) => k.toLowerCase() === key.toLowerCase());
        if (match === undefined) return undefined;
        node = node[match];
    }
    return node;
}

/** What resourceId(type, name) evaluates to for a resource, in the form resource ids take here. */
export function resourceIdOf(resource: Resource): Runtime {
    return runtimeCall('resourceId', [resource.type, ...inline(resource.name).split('/')]);
}

/** What reference(resource) evaluates to, for comparing values read from a resource's properties. */
export function referenceOf(resource: Resource): Runtime {
    return new Runtime(`reference(${resource.type}/${inline(resource.name)})`);
}
