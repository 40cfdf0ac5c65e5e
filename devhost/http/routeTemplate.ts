import { createRouteConstraint, RouteConstraintError, type RouteConstraint } from './routeConstraints';

/**
 * ASP.NET Core route templates, parsed and matched the way the Functions host's router (ASP.NET `Route`, i.e.
 * RoutePatternParser + RoutePatternMatcher) does: literals are case-insensitive, `{p}`, `{p?}`, `{p=default}`,
 * `{*rest}`/`{**rest}`, inline constraints chained with `:`, complex segments such as `{name}.{ext?}`.
 */

export interface LiteralPart {
    kind: 'literal';
    text: string;
}

export interface ParameterPart {
    kind: 'parameter';
    name: string;
    optional: boolean;
    catchAll: boolean;
    defaultValue: string | undefined;
    constraints: RouteConstraint[];
}

export type TemplatePart = LiteralPart | ParameterPart;

export interface RouteTemplate {
    /** The template as written (after the prefix was joined). */
    text: string;
    /** One entry per path segment; a segment with more than one part is "complex". */
    segments: TemplatePart[][];
    /** ASP.NET's inbound precedence, one digit per segment: smaller is more specific. */
    precedence: number[];
}

export type RouteValues = Record<string, string>;

export class RouteTemplateError extends Error {
    override name = 'RouteTemplateError';
}

/** Joins host.json's routePrefix and a function's route the way WebJobsRouteBuilder does. */
export function joinRoutePrefix(prefix: string, route: string): string {
    return prefix ? `${prefix}/${route}` : route;
}

export function parseRouteTemplate(text: string): RouteTemplate {
    const fail = (reason: string): never => {
        throw new RouteTemplateError(`The route template '${text}' is invalid: ${reason}`);
    };
    let body = text;
    if (body.startsWith('~/')) body = body.slice(2);
    else if (body.startsWith('/')) body = body.slice(1);
    else if (body.startsWith('~')) fail(`it cannot start with '~'.`);

    const segments: TemplatePart[][] = [];
    const names = new Set<string>();
    let i = 0;
    while (i < body.length) {
        if (body[i] === '/') fail('the separator character \'/\' cannot appear consecutively.');
        const parts: TemplatePart[] = [];
        while (i < body.length && body[i] !== '/') {
            if (body[i] === '{' && body[i + 1] !== '{') {
                const end = parameterEnd(body, i, fail);
                const part = parseParameter(body.slice(i + 1, end).replace(/\}\}/g, '}').replace(/\{\{/g, '{'), fail);
                const key = part.name.toLowerCase();
                if (names.has(key)) fail(`the parameter '${part.name}' appears more than once.`);
                names.add(key);
                parts.push(part);
                i = end + 1;
            } else {
                const start = i;
                while (i < body.length && body[i] !== '/' && !(body[i] === '{' && body[i + 1] !== '{')) {
                    if (body[i] === '{' || body[i] === '}') {
                        if (body[i + 1] !== body[i]) fail('there is a mismatched \'{\' or \'}\'.');
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                const literal = body.slice(start, i).replace(/\}\}/g, '}').replace(/\{\{/g, '{');
                if (literal.includes('?')) fail(`the literal section '${literal}' cannot contain '?'.`);
                parts.push({ kind: 'literal', text: literal });
            }
        }
        validateSegment(parts, fail);
        segments.push(parts);
        i += 1; // the separator
    }
    segments.forEach((parts, index) =>
        parts.forEach((part, partIndex) => {
            if (part.kind === 'parameter' && part.catchAll && (index !== segments.length - 1 || partIndex !== parts.length - 1)) {
                fail('a catch-all parameter can only appear as the last segment.');
            }
        })
    );
    return { text, segments, precedence: segments.map(precedenceDigit) };
}

/** Index of the `}` closing the parameter opened at `open`; `{{` and `}}` inside are escapes. */
function parameterEnd(body: string, open: number, fail: (reason: string) => never): number {
    let j = open + 1;
    for (;;) {
        if (j >= body.length) fail('there is a mismatched \'{\' or \'}\'.');
        if (body[j] === '{') {
            if (body[j + 1] !== '{') fail('a \'{\' inside a parameter must be escaped as \'{{\'.');
            j += 2;
        } else if (body[j] === '}') {
            if (body[j + 1] !== '}') return j;
            j += 2;
        } else {
            j += 1;
        }
    }
}

/** The inside of `{...}`: `*`/`**` catch-all, the name, `:constraint(args)`..., then `=default` or a final `?`. */
function parseParameter(inside: string, fail: (reason: string) => never): ParameterPart {
    if (inside.length === 0) fail('a parameter name cannot be empty.');
    let start = 0;
    let end = inside.length - 1;
    let catchAll = false;
    let optional = false;
    if (inside.startsWith('**')) {
        catchAll = true;
        start = 2;
    } else if (inside.startsWith('*')) {
        catchAll = true;
        start = 1;
    }
    if (inside[end] === '?') {
        optional = true;
        end -= 1;
    }
    if (catchAll && optional) fail('a catch-all parameter cannot be marked optional.');

    // The name runs to the first ':' or '=' (a leading one belongs to the name, as in ASP.NET).
    let cursor = start;
    while (cursor <= end && !((inside[cursor] === ':' || inside[cursor] === '=') && cursor !== start)) cursor += 1;
    const name = inside.slice(start, cursor);
    if (name.length === 0 || /[/{}?*]/.test(name)) fail(`'${name}' is not a valid parameter name.`);

    const references: string[] = [];
    while (cursor <= end && inside[cursor] === ':') {
        const from = cursor + 1;
        cursor = from;
        let depth = false;
        for (; cursor <= end; cursor += 1) {
            const ch = inside[cursor];
            if (!depth && (ch === ':' || ch === '=')) break;
            if (ch === '(') depth = true;
            else if (ch === ')' && depth) {
                // A ')' closes the arguments only at the end or before ':' / '=' (regexes contain parentheses).
                const next = cursor + 1 > end ? undefined : inside[cursor + 1];
                if (next === undefined || next === ':' || next === '=') {
                    depth = false;
                    cursor += 1;
                    break;
                }
            }
        }
        const reference = inside.slice(from, cursor);
        if (reference.length > 0) references.push(reference);
    }
    let defaultValue: string | undefined;
    if (cursor <= end && inside[cursor] === '=') defaultValue = inside.slice(cursor + 1, end + 1);
    if (optional && defaultValue !== undefined) fail(`the optional parameter '${name}' cannot have a default value.`);

    let constraints: RouteConstraint[];
    try {
        constraints = references.map(createRouteConstraint);
    } catch (err) {
        if (err instanceof RouteConstraintError) fail(err.message);
        throw err;
    }
    return { kind: 'parameter', name, optional, catchAll, defaultValue, constraints };
}

function validateSegment(parts: TemplatePart[], fail: (reason: string) => never): void {
    if (parts.length <= 1) return;
    parts.forEach((part, index) => {
        if (part.kind !== 'parameter') return;
        if (part.catchAll) fail('a segment with more than one part cannot contain a catch-all parameter.');
        const previous = parts[index - 1];
        if (previous?.kind === 'parameter') fail('a segment cannot contain two consecutive parameters.');
        if (part.optional) {
            if (index !== parts.length - 1) fail(`the optional parameter '${part.name}' must be at the end of the segment.`);
            if (previous?.kind !== 'literal' || previous.text !== '.') {
                fail(`only a period (.) can precede the optional parameter '${part.name}'.`);
            }
        }
    });
}

/** RoutePrecedence.ComputeInbound's digit for one segment. */
function precedenceDigit(parts: TemplatePart[]): number {
    if (parts.length > 1) return 2;
    const part = parts[0];
    if (!part || part.kind === 'literal') return 1;
    const digit = part.catchAll ? 5 : 3;
    return part.constraints.length > 0 ? digit - 1 : digit;
}

/** Orders templates as ASP.NET orders inbound routes: compare digit by digit, a missing digit counting as 0. */
export function comparePrecedence(a: RouteTemplate, b: RouteTemplate): number {
    const length = Math.max(a.precedence.length, b.precedence.length);
    for (let i = 0; i < length; i += 1) {
        const diff = (a.precedence[i] ?? 0) - (b.precedence[i] ?? 0);
        if (diff !== 0) return diff;
    }
    return 0;
}

/**
 * A request path as the router sees it: Kestrel decodes the path except `%2F`, and ASP.NET's PathTokenizer
 * ignores one trailing slash. `rest(i)` is the undivided remainder from segment i, which a catch-all captures
 * verbatim (trailing slash included).
 */
export interface RequestPath {
    segments: string[];
    rest(index: number): string;
}

export function splitRequestPath(pathname: string): RequestPath {
    const decoded = decodePath(pathname);
    const trimmed = decoded.startsWith('/') ? decoded.slice(1) : decoded;
    const withoutTrailing = trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
    const segments = trimmed.length === 0 ? [] : withoutTrailing.split('/');
    const offsets: number[] = [];
    let offset = 0;
    for (const segment of segments) {
        offsets.push(offset);
        offset += segment.length + 1;
    }
    return { segments, rest: (index) => (index < offsets.length ? trimmed.slice(offsets[index]) : '') };
}

/** Percent-decodes everything but `%2F` (an encoded slash stays inside its segment); bad escapes stay as sent. */
function decodePath(pathname: string): string {
    return pathname
        .split(/(%2F)/i)
        .map((piece, index) => {
            if (index % 2 === 1) return piece;
            try {
                return decodeURIComponent(piece);
            } catch {
                return piece;
            }
        })
        .join('');
}

/** Route values when `path` matches `template` (constraints included), otherwise undefined. */
export function matchRouteTemplate(template: RouteTemplate, path: RequestPath): RouteValues | undefined {
    const values: RouteValues = {};
    const { segments } = template;
    let index = 0;
    for (; index < path.segments.length; index += 1) {
        const requestSegment = path.segments[index] ?? '';
        if (requestSegment.length === 0) return undefined;
        const parts = segments[index];
        if (!parts) return undefined;
        const first = parts[0];
        if (parts.length === 1 && first?.kind === 'parameter' && first.catchAll) {
            values[first.name] = path.rest(index);
            index = segments.length;
            break;
        }
        if (parts.length === 1 && first) {
            if (first.kind === 'literal') {
                if (requestSegment.toLowerCase() !== first.text.toLowerCase()) return undefined;
            } else {
                values[first.name] = requestSegment;
            }
        } else if (!matchComplexSegment(parts, requestSegment, values)) {
            return undefined;
        }
    }
    // Template segments the path did not reach must be parameters that may be absent.
    for (; index < segments.length; index += 1) {
        const parts = segments[index] ?? [];
        const first = parts[0];
        if (parts.length !== 1 || first?.kind !== 'parameter') return undefined;
        if (!first.catchAll && !first.optional && first.defaultValue === undefined) return undefined;
        if (first.defaultValue !== undefined) values[first.name] = first.defaultValue;
    }
    return constraintsHold(template, values) ? values : undefined;
}

function constraintsHold(template: RouteTemplate, values: RouteValues): boolean {
    for (const parts of template.segments) {
        for (const part of parts) {
            if (part.kind !== 'parameter' || part.constraints.length === 0) continue;
            const value = values[part.name];
            // An optional parameter without a value passes, as ASP.NET's OptionalRouteConstraint does.
            if (value === undefined) continue;
            if (!part.constraints.every((check) => check(value))) return false;
        }
    }
    return true;
}

/**
 * RoutePatternMatcher.MatchComplexSegment: right to left, each literal found by its last occurrence, every
 * parameter non-empty; `{name}.{ext?}` also matches without the `.ext`.
 */
function matchComplexSegment(parts: TemplatePart[], segment: string, values: RouteValues): boolean {
    const lastIndex = parts.length - 1;
    const last = parts[lastIndex];
    if (last?.kind === 'parameter' && last.optional) {
        if (matchComplexCore(parts, segment, values, lastIndex)) return true;
        const separator = parts[lastIndex - 1];
        if (separator?.kind === 'literal' && segment.toLowerCase().endsWith(separator.text.toLowerCase())) return false;
        return matchComplexCore(parts, segment, values, lastIndex - 2);
    }
    return matchComplexCore(parts, segment, values, lastIndex);
}

function matchComplexCore(parts: TemplatePart[], segment: string, values: RouteValues, lastUsed: number): boolean {
    const lower = segment.toLowerCase();
    let end = segment.length;
    let pending: ParameterPart | undefined;
    const found: RouteValues = {};
    for (let index = lastUsed; index >= 0; index -= 1) {
        const part = parts[index];
        if (!part) return false;
        if (part.kind === 'parameter') {
            pending = part;
            if (index === 0) {
                if (end === 0) return false;
                found[part.name] = segment.slice(0, end);
                pending = undefined;
            }
            continue;
        }
        const searchEnd = pending ? end - 1 : end;
        if (searchEnd <= 0) return false;
        const literal = part.text.toLowerCase();
        const at = lower.slice(0, searchEnd).lastIndexOf(literal);
        if (at < 0) return false;
        // The rightmost literal must end the segment, or "Foo" would match "somethingFoo".
        if (index === parts.length - 1 && at + literal.length !== segment.length) return false;
        if (pending) {
            const value = segment.slice(at + literal.length, end);
            if (value.length === 0) return false;
            found[pending.name] = value;
            pending = undefined;
        }
        end = at;
    }
    const first = parts[0];
    if (end !== 0 && first?.kind !== 'parameter') return false;
    Object.assign(values, found);
    return true;
}
