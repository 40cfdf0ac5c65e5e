/**
 * ASP.NET Core inline route constraints (`{id:int}`, `{s:length(2,8)}`, ...), as the Functions host resolves
 * them through ASP.NET's DefaultInlineConstraintResolver. Each check mirrors the .NET parse it stands for
 * (invariant culture); where .NET is laxer than a regex can say (DateTime.TryParse) the check is the common subset.
 */

export type RouteConstraint = (value: string) => boolean;

export class RouteConstraintError extends Error {
    override name = 'RouteConstraintError';
}

/** .NET's NumberStyles white space: tab, LF, VT, FF, CR and space. */
const WS = '[\\t\\n\\v\\f\\r ]*';
const INTEGER = new RegExp(`^${WS}([+-]?)([0-9]+)${WS}$`);
// NumberStyles.Float | AllowThousands (double, float): sign, thousands separators, decimal point, exponent.
const FLOAT = new RegExp(`^${WS}[+-]?(?:[0-9][0-9,]*(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?${WS}$`);
const FLOAT_SYMBOLS = new RegExp(`^${WS}(?:[+-]?infinity|nan|[+-]?∞)${WS}$`, 'i');
// NumberStyles.Number (decimal): like Float without the exponent; the sign may also trail.
const DECIMAL = new RegExp(`^${WS}([+-]?)((?:[0-9][0-9,]*(?:\\.[0-9]*)?|\\.[0-9]+))([+-]?)${WS}$`);
const DECIMAL_MAX = 79228162514264337593543950335;
const HEX = '[0-9a-fA-F]';
const GUID_D = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;
const GUID = new RegExp(`^${WS}(?:${HEX}{32}|${GUID_D}|\\{${GUID_D}\\}|\\(${GUID_D}\\))${WS}$`);

function parseInteger(value: string, bits: 32 | 64): bigint | undefined {
    const match = INTEGER.exec(value);
    if (!match) return undefined;
    const parsed = BigInt(`${match[1] ?? ''}${match[2] ?? ''}`);
    const limit = 1n << BigInt(bits - 1);
    return parsed >= -limit && parsed < limit ? parsed : undefined;
}

function isDecimal(value: string): boolean {
    const match = DECIMAL.exec(value);
    if (!match) return false;
    const [, leadingSign = '', digits = '', trailingSign = ''] = match;
    if (leadingSign && trailingSign) return false;
    return Math.abs(Number(digits.replace(/,/g, ''))) <= DECIMAL_MAX;
}

function isFloat(value: string): boolean {
    // .NET Core 3.0+ answers ±Infinity on overflow instead of failing, so any well-formed number passes.
    return FLOAT.test(value) || FLOAT_SYMBOLS.test(value);
}

function isBool(value: string): boolean {
    return /^[\s\0]*(true|false)[\s\0]*$/i.test(value);
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AP]M))?)?$/i;

/**
 * DateTime.TryParse with the invariant culture accepts far more than this; these are the forms a URL carries in
 * practice: ISO 8601 (`2024-05-01`, `2024-05-01T10:30:00Z`) and the invariant `MM/dd/yyyy [HH:mm[:ss] [AM|PM]]`.
 */
function isDateTime(value: string): boolean {
    const text = value.trim();
    let year: number, month: number, day: number, hour = 0, minute = 0, second = 0;
    let twelveHour = false;
    const iso = ISO_DATE.exec(text);
    const us = iso ? undefined : US_DATE.exec(text);
    if (iso) {
        [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
        [hour, minute, second] = [Number(iso[4] ?? 0), Number(iso[5] ?? 0), Number(iso[6] ?? 0)];
    } else if (us) {
        [month, day, year] = [Number(us[1]), Number(us[2]), Number(us[3])];
        [hour, minute, second] = [Number(us[4] ?? 0), Number(us[5] ?? 0), Number(us[6] ?? 0)];
        twelveHour = us[7] !== undefined;
    } else {
        return false;
    }
    if (year < 1 || month < 1 || month > 12 || day < 1) return false;
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    if (day > (month === 2 && !leap ? 28 : (DAYS_IN_MONTH[month - 1] ?? 0))) return false;
    if (twelveHour ? hour < 1 || hour > 12 : hour > 23) return false;
    return minute <= 59 && second <= 59;
}

function integerArgument(name: string, text: string | undefined): number {
    if (text === undefined || !/^\s*-?\d+\s*$/.test(text)) {
        throw new RouteConstraintError(`The constraint '${name}' needs an integer argument, not '${text ?? ''}'.`);
    }
    return Number(text);
}

function argumentsOf(name: string, args: string | undefined, count: number[]): string[] {
    const list = args === undefined ? [] : args.split(',');
    if (!count.includes(list.length)) {
        throw new RouteConstraintError(
            `The constraint '${name}' takes ${count.join(' or ')} argument(s), got ${list.length}${args ? ` ('${args}')` : ''}.`
        );
    }
    return list;
}

function longBetween(min: bigint | undefined, max: bigint | undefined): RouteConstraint {
    return (value) => {
        const parsed = parseInteger(value, 64);
        return parsed !== undefined && (min === undefined || parsed >= min) && (max === undefined || parsed <= max);
    };
}

function toBigInt(name: string, text: string | undefined): bigint {
    return BigInt(integerArgument(name, text));
}

/**
 * Builds the check for one constraint reference as it appears after a `:` in a template, e.g. `int`,
 * `range(1,10)` or `regex(^\d+$)`. Names are case-insensitive, as ASP.NET's constraint map is.
 */
export function createRouteConstraint(reference: string): RouteConstraint {
    const open = reference.indexOf('(');
    const hasArgs = open >= 0 && reference.endsWith(')');
    if (open >= 0 && !hasArgs) throw new RouteConstraintError(`The constraint '${reference}' is missing its closing ')'.`);
    const name = (hasArgs ? reference.slice(0, open) : reference).trim().toLowerCase();
    const args = hasArgs ? reference.slice(open + 1, -1) : undefined;
    const noArgs = () => argumentsOf(name, args, [0]);

    switch (name) {
        case 'int':
            noArgs();
            return (value) => parseInteger(value, 32) !== undefined;
        case 'long':
            noArgs();
            return (value) => parseInteger(value, 64) !== undefined;
        case 'bool':
            noArgs();
            return isBool;
        case 'guid':
            noArgs();
            return (value) => GUID.test(value);
        case 'alpha':
            noArgs();
            return (value) => /^[a-z]*$/i.test(value);
        case 'double':
        case 'float':
            noArgs();
            return isFloat;
        case 'decimal':
            noArgs();
            return isDecimal;
        case 'datetime':
            noArgs();
            return isDateTime;
        case 'required':
            noArgs();
            return (value) => value.length > 0;
        case 'minlength': {
            const [min] = argumentsOf(name, args, [1]).map((a) => integerArgument(name, a));
            return (value) => value.length >= (min ?? 0);
        }
        case 'maxlength': {
            const [max] = argumentsOf(name, args, [1]).map((a) => integerArgument(name, a));
            return (value) => value.length <= (max ?? 0);
        }
        case 'length': {
            const bounds = argumentsOf(name, args, [1, 2]).map((a) => integerArgument(name, a));
            const min = bounds[0] ?? 0;
            const max = bounds[1] ?? min;
            return (value) => value.length >= min && value.length <= max;
        }
        case 'min': {
            const [min] = argumentsOf(name, args, [1]);
            return longBetween(toBigInt(name, min), undefined);
        }
        case 'max': {
            const [max] = argumentsOf(name, args, [1]);
            return longBetween(undefined, toBigInt(name, max));
        }
        case 'range': {
            const [min, max] = argumentsOf(name, args, [2]);
            return longBetween(toBigInt(name, min), toBigInt(name, max));
        }
        case 'regex': {
            if (args === undefined) throw new RouteConstraintError(`The constraint 'regex' needs a pattern.`);
            let pattern: RegExp;
            try {
                // RegexRouteConstraint: IgnoreCase | CultureInvariant, and IsMatch, so the pattern is not anchored.
                pattern = new RegExp(args, 'i');
            } catch (err) {
                throw new RouteConstraintError(`The constraint regex(${args}) is not a valid regular expression: ${(err as Error).message}`);
            }
            return (value) => pattern.test(value);
        }
        default:
            throw new RouteConstraintError(`The constraint reference '${reference}' could not be resolved.`);
    }
}
