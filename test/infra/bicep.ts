/**
 * Small readers for the infra tests: the repo root, JSON with comments, a two-level YAML subset, and a
 * Bicep reader that splits a file into top-level statements and object entries.
 *
 * No Bicep compiler can be installed where these tests run, so this reads the source text. It only
 * understands the shapes our own Bicep uses (params, vars, resources, modules, outputs, object literals);
 * when it cannot make sense of something it throws, naming the file, rather than guessing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json: tests run from dist/test/infra, so walk up from there. */
export function repoRoot(start: string = __dirname): string {
    let dir = start;
    while (!existsSync(join(dir, 'package.json'))) {
        const parent = dirname(dir);
        if (parent === dir) throw new Error(`No package.json above ${start}`);
        dir = parent;
    }
    return dir;
}

export function readRepoFile(relativePath: string): string {
    return readFileSync(join(repoRoot(), relativePath), 'utf8');
}

// ---------------------------------------------------------------------------------------------------
// JSON with comments (VS Code's .vscode files and local.settings.json may carry them)

/** Parses JSON that may contain // and /* *\/ comments and trailing commas, as VS Code allows. */
export function parseJsonc(text: string, file: string): unknown {
    let out = '';
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        const next = text[i + 1];
        if (inString) {
            out += c;
            if (c === '\\') out += text[++i] ?? '';
            else if (c === '"') inString = false;
        } else if (c === '"') {
            inString = true;
            out += c;
        } else if (c === '/' && next === '/') {
            while (i < text.length && text[i] !== '\n') i++;
            out += '\n';
        } else if (c === '/' && next === '*') {
            const end = text.indexOf('*/', i + 2);
            if (end < 0) throw new Error(`${file}: unterminated comment`);
            i = end + 1;
        } else {
            out += c;
        }
    }
    try {
        return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
    } catch (error) {
        throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
    }
}

export function readJson(relativePath: string): unknown {
    return parseJsonc(readRepoFile(relativePath), relativePath);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a path of keys, case-insensitively as the Functions host reads host.json and app settings. */
export function getPathInsensitive(root: unknown, path: readonly string[]): unknown {
    let node = root;
    for (const key of path) {
        if (!isRecord(node)) return undefined;
        const match = Object.keys(node).find((k) => k.toLowerCase() === key.toLowerCase());
        if (match === undefined) return undefined;
        node = node[match];
    }
    return node;
}

// ---------------------------------------------------------------------------------------------------
// YAML: only the subset azure.yaml uses (nested maps of scalars, comments)

export interface YamlMap {
    [key: string]: string | YamlMap;
}

/** Reads nested `key: value` maps by indentation. Lists and flow syntax are rejected, not misread. */
export function parseSimpleYaml(text: string, file: string): YamlMap {
    const root: YamlMap = {};
    const stack: { indent: number; map: YamlMap }[] = [{ indent: -1, map: root }];
    text.split(/\r?\n/).forEach((raw, index) => {
        const line = raw.replace(/\s+#.*$/, '');
        if (line.trim() === '' || line.trimStart().startsWith('#')) return;
        const match = /^( *)([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line);
        if (!match) throw new Error(`${file}:${index + 1}: unsupported YAML: ${raw.trim()}`);
        const [, spaces = '', key = '', value] = match;
        while ((stack[stack.length - 1]?.indent ?? -1) >= spaces.length) stack.pop();
        const parent = stack[stack.length - 1];
        if (!parent) throw new Error(`${file}:${index + 1}: bad indentation`);
        if (value === undefined || value === '') {
            const child: YamlMap = {};
            parent.map[key] = child;
            stack.push({ indent: spaces.length, map: child });
        } else {
            parent.map[key] = value.replace(/^(['"])(.*)\1$/, '$2');
        }
    });
    return root;
}

// ---------------------------------------------------------------------------------------------------
// Bicep

export interface Statement {
    keyword: 'targetScope' | 'param' | 'var' | 'resource' | 'module' | 'output';
    /** Symbolic name (for targetScope: empty). */
    name: string;
    /** For param/output: the type; for resource: 'Type@apiVersion'; for module: the module path. */
    type: string;
    /** The expression after `=`, trimmed (param default, var value, resource/module body, output value). */
    value: string;
    /** Decorator lines above the statement, e.g. `@minLength(1)`. */
    decorators: string[];
    /** A resource declared with `existing`: a reference, not something this file deploys. */
    existing: boolean;
    /** 1-based line of the keyword in the file. */
    line: number;
}

export interface BicepFile {
    path: string;
    /** The source with comments blanked out (same length, so offsets and line numbers still hold). */
    code: string;
    statements: Statement[];
}

/** Replaces comments with spaces, leaving strings (including ''' multi-line strings) alone. */
export function blankComments(source: string): string {
    let out = '';
    let i = 0;
    while (i < source.length) {
        if (source.startsWith("'''", i)) {
            const end = source.indexOf("'''", i + 3);
            const stop = end < 0 ? source.length : end + 3;
            out += source.slice(i, stop);
            i = stop;
        } else if (source[i] === "'") {
            let j = i + 1;
            while (j < source.length && source[j] !== "'") j += source[j] === '\\' ? 2 : 1;
            out += source.slice(i, j + 1);
            i = j + 1;
        } else if (source.startsWith('//', i)) {
            while (i < source.length && source[i] !== '\n') {
                out += ' ';
                i++;
            }
        } else if (source.startsWith('/*', i)) {
            const end = source.indexOf('*/', i + 2);
            const stop = end < 0 ? source.length : end + 2;
            out += source.slice(i, stop).replace(/[^\n]/g, ' ');
            i = stop;
        } else {
            out += source[i];
            i++;
        }
    }
    return out;
}

/**
 * Splits `code` at depth 0 (outside strings and brackets) wherever `isBreak` says so.
 * Used both to find top-level statements and to split an object literal into entries.
 */
function splitTopLevel(code: string, isBreak: (char: string) => boolean): string[] {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    let i = 0;
    while (i < code.length) {
        const c = code[i] ?? '';
        if (code.startsWith("'''", i)) {
            const end = code.indexOf("'''", i + 3);
            i = end < 0 ? code.length : end + 3;
            continue;
        }
        if (c === "'") {
            i++;
            while (i < code.length && code[i] !== "'") i += code[i] === '\\' ? 2 : 1;
        } else if ('{[('.includes(c)) {
            depth++;
        } else if ('}])'.includes(c)) {
            depth--;
        } else if (depth === 0 && isBreak(c)) {
            parts.push(code.slice(start, i));
            start = i + 1;
        }
        i++;
    }
    parts.push(code.slice(start));
    return parts;
}

const STATEMENT = /^(targetScope|param|var|resource|module|output)\b\s*(.*)$/s;

export function parseBicep(relativePath: string): BicepFile {
    const source = readRepoFile(relativePath);
    const code = blankComments(source);
    const statements: Statement[] = [];
    let decorators: string[] = [];
    let offset = 0;
    // Top-level statements and decorators each start on a new line at depth 0.
    for (const chunk of splitTopLevel(code, (c) => c === '\n')) {
        const text = chunk.trim();
        const line = countNewlines(code.slice(0, offset)) + 1;
        offset += chunk.length + 1;
        if (text === '') continue;
        if (text.startsWith('@')) {
            decorators.push(text);
            continue;
        }
        const match = STATEMENT.exec(text);
        if (!match) throw new Error(`${relativePath}:${line}: unexpected top-level text: ${text.slice(0, 60)}`);
        statements.push({ ...readStatement(match[1] as Statement['keyword'], match[2] ?? '', relativePath, line), decorators, line });
        decorators = [];
    }
    return { path: relativePath, code, statements };
}

function countNewlines(text: string): number {
    return text.split('\n').length - 1;
}

function readStatement(keyword: Statement['keyword'], rest: string, file: string, line: number): Omit<Statement, 'decorators' | 'line'> {
    const fail = (): never => {
        throw new Error(`${file}:${line}: cannot read this ${keyword} statement`);
    };
    switch (keyword) {
        case 'targetScope':
            return { keyword, name: '', type: '', value: rest.replace(/^=\s*/, '').trim(), existing: false };
        case 'param':
        case 'output': {
            const m = /^(\w+)\s+(\w+)\s*(?:=\s*([\s\S]*))?$/.exec(rest) ?? fail();
            return { keyword, name: m[1] ?? '', type: m[2] ?? '', value: (m[3] ?? '').trim(), existing: false };
        }
        case 'var': {
            const m = /^(\w+)\s*=\s*([\s\S]*)$/.exec(rest) ?? fail();
            return { keyword, name: m[1] ?? '', type: '', value: (m[2] ?? '').trim(), existing: false };
        }
        case 'resource':
        case 'module': {
            const m = /^(\w+)\s+'([^']+)'\s*(existing\s*)?=\s*([\s\S]*)$/.exec(rest) ?? fail();
            return { keyword, name: m[1] ?? '', type: m[2] ?? '', value: (m[4] ?? '').trim(), existing: m[3] !== undefined };
        }
    }
}

export function statement(file: BicepFile, keyword: Statement['keyword'], name: string): Statement {
    const found = file.statements.find((s) => s.keyword === keyword && s.name === name);
    if (!found) throw new Error(`${file.path} has no ${keyword} named ${name}`);
    return found;
}

export function statementsOf(file: BicepFile, keyword: Statement['keyword']): Statement[] {
    return file.statements.filter((s) => s.keyword === keyword);
}

/** Resources the file deploys (not `existing` references) of `type`, e.g. 'Microsoft.Authorization/roleAssignments'. */
export function resourcesOfType(file: BicepFile, type: string): Statement[] {
    return statementsOf(file, 'resource').filter((s) => !s.existing && s.type.split('@')[0]?.toLowerCase() === type.toLowerCase());
}

export interface Entry {
    key: string;
    value: string;
}

/**
 * The top-level entries of an object literal `{ ... }` (a resource body, a var, a module's params).
 * A resource body written as `[for x in y: { ... }]` or `if (cond) { ... }` yields the inner object's entries.
 */
export function objectEntries(expression: string, where: string): Entry[] {
    const body = unwrapObject(expression.trim(), where);
    const entries: Entry[] = [];
    // Entries are separated by newlines or (on one line) commas.
    for (const raw of splitTopLevel(body, (c) => c === '\n' || c === ',')) {
        const text = raw.trim();
        if (text === '') continue;
        const m = /^(?:'([^']*)'|(\w+))\s*:\s*([\s\S]*)$/.exec(text);
        if (m) {
            entries.push({ key: m[1] ?? m[2] ?? '', value: (m[3] ?? '').trim() });
        } else if (/^(resource|var)\b/.test(text)) {
            // A nested child resource declaration inside a resource body: not an entry.
            continue;
        } else {
            throw new Error(`${where}: cannot read object entry: ${text.slice(0, 60)}`);
        }
    }
    return entries;
}

function unwrapObject(expression: string, where: string): string {
    let text = expression;
    const loop = /^\[\s*for\s[^:]+:\s*([\s\S]*)\]$/.exec(text);
    if (loop) text = (loop[1] ?? '').trim();
    const condition = /^if\s*\(/.exec(text);
    if (condition) text = text.slice(closingParen(text, text.indexOf('(')) + 1).trim();
    if (!text.startsWith('{') || !text.endsWith('}')) throw new Error(`${where}: expected an object literal, found ${text.slice(0, 40)}`);
    return text.slice(1, -1);
}

function closingParen(text: string, open: number): number {
    let depth = 0;
    for (let i = open; i < text.length; i++) {
        if (text[i] === '(') depth++;
        if (text[i] === ')' && --depth === 0) return i;
    }
    throw new Error(`unbalanced parentheses in ${text.slice(0, 40)}`);
}

/** The value of `key` in an object literal, or undefined. Keys compare case-insensitively, as ARM does. */
export function entry(expression: string, key: string, where: string): string | undefined {
    return objectEntries(expression, where).find((e) => e.key.toLowerCase() === key.toLowerCase())?.value;
}

/** Follows a dotted path of object keys, e.g. ['properties', 'functionAppConfig', 'runtime']. */
export function entryAt(expression: string, path: readonly string[], where: string): string | undefined {
    let value: string | undefined = expression;
    for (const key of path) {
        if (value === undefined) return undefined;
        value = entry(value, key, `${where} ${path.join('.')}`);
    }
    return value;
}

/** The items of an array literal `[ ... ]` (newline- or comma-separated). */
export function arrayItems(expression: string, where: string): string[] {
    const text = expression.trim();
    if (!text.startsWith('[') || !text.endsWith(']')) throw new Error(`${where}: expected an array literal, found ${text.slice(0, 40)}`);
    return splitTopLevel(text.slice(1, -1), (c) => c === '\n' || c === ',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}

/** A plain string literal without interpolation ('abc'), or undefined for any other expression. */
export function stringLiteral(expression: string | undefined): string | undefined {
    const m = /^'((?:[^'\\$]|\\.|\$(?!\{))*)'$/.exec((expression ?? '').trim());
    return m ? (m[1] ?? '').replace(/\\(.)/g, '$1') : undefined;
}

/** Reads a literal: string, integer, boolean. Undefined for anything computed. */
export function literal(expression: string | undefined): string | number | boolean | undefined {
    const text = (expression ?? '').trim();
    if (/^-?\d+$/.test(text)) return Number(text);
    if (text === 'true' || text === 'false') return text === 'true';
    return stringLiteral(text);
}

// ---------------------------------------------------------------------------------------------------
// Resolving a value through params, module arguments and outputs

export interface Deployment {
    main: BicepFile;
    /** Module files by the path main.bicep uses for them, e.g. 'app/scheduler.bicep'. */
    modules: Map<string, BicepFile>;
}

export function loadDeployment(mainPath = 'infra/main.bicep'): Deployment {
    const main = parseBicep(mainPath);
    const modules = new Map<string, BicepFile>();
    for (const module of statementsOf(main, 'module')) {
        modules.set(module.type, parseBicep(join(dirname(mainPath), module.type).replace(/\\/g, '/')));
    }
    return { main, modules };
}

/** The module statement in main.bicep that instantiates `file`. */
function callerOf(deployment: Deployment, file: BicepFile): Statement | undefined {
    for (const [path, module] of deployment.modules) {
        if (module === file) return statementsOf(deployment.main, 'module').find((m) => m.type === path);
    }
    return undefined;
}

/**
 * Statically evaluates `expression` in `file` where it only passes values along: literals, `string(x)`,
 * params (the caller's argument, else the default), `module.outputs.x`, `resource.name`.
 * Returns undefined for anything only Azure knows (endpoints, ids) or that this reader does not follow.
 */
export function resolve(deployment: Deployment, file: BicepFile, expression: string, depth = 0): string | number | boolean | undefined {
    if (depth > 20) throw new Error(`${file.path}: value chain too long at ${expression}`);
    const text = expression.trim();
    const value = literal(text);
    if (value !== undefined) return value;

    const stringCall = /^string\((.+)\)$/s.exec(text);
    if (stringCall) {
        const inner = resolve(deployment, file, stringCall[1] ?? '', depth + 1);
        return inner === undefined ? undefined : String(inner);
    }

    const ident = /^\w+$/.test(text) ? text : undefined;
    if (ident) {
        const symbol = file.statements.find((s) => s.name === ident && (s.keyword === 'param' || s.keyword === 'var'));
        if (!symbol) return undefined;
        if (symbol.keyword === 'var') return resolve(deployment, file, symbol.value, depth + 1);
        const caller = callerOf(deployment, file);
        const argument = caller ? entry(entry(caller.value, 'params', caller.name) ?? '{}', ident, `${deployment.main.path} module ${caller.name}`) : undefined;
        if (argument !== undefined) return resolve(deployment, deployment.main, argument, depth + 1);
        return symbol.value === '' ? undefined : resolve(deployment, file, symbol.value, depth + 1);
    }

    const output = /^(\w+)\.outputs\.(\w+)$/.exec(text);
    if (output && file === deployment.main) {
        const module = statement(file, 'module', output[1] ?? '');
        const target = deployment.modules.get(module.type);
        if (!target) return undefined;
        return resolve(deployment, target, statement(target, 'output', output[2] ?? '').value, depth + 1);
    }

    const name = /^(\w+)\.name$/.exec(text);
    if (name) {
        const resource = file.statements.find((s) => s.name === name[1] && (s.keyword === 'resource' || s.keyword === 'module'));
        const nameExpr = resource ? entry(resource.value, 'name', `${file.path} ${resource.name}`) : undefined;
        return nameExpr === undefined ? undefined : resolve(deployment, file, nameExpr, depth + 1);
    }
    return undefined;
}

/** The module file main.bicep loads from `path` (as written in main.bicep, e.g. 'app/function-app.bicep'). */
export function moduleFile(deployment: Deployment, path: string): BicepFile {
    const file = deployment.modules.get(path);
    if (!file) throw new Error(`infra/main.bicep does not use the module ${path}`);
    return file;
}

// ---------------------------------------------------------------------------------------------------
// README

export const DEPLOY_HEADING = '## Deploy to Azure';

/** The README's deploy section: from its heading to the next level-2 heading or the end. */
export function deploySection(): string {
    const readme = readRepoFile('README.md');
    const start = readme.split(/\r?\n/).findIndex((line) => line.trim() === DEPLOY_HEADING);
    if (start < 0) throw new Error(`README.md has no "${DEPLOY_HEADING}" section`);
    const lines = readme.split(/\r?\n/).slice(start);
    const end = lines.findIndex((line, i) => i > 0 && /^## /.test(line));
    return (end < 0 ? lines : lines.slice(0, end)).join('\n');
}
