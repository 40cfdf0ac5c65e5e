/**
 * How the report writes figures. A figure that could not be taken (undefined, or a NaN from /proc off
 * Linux, a ratio of nothing) is written as words, never as NaN, Infinity or undefined.
 */

/** What a missing figure reads as unless the caller says why. */
export const NOT_MEASURED = 'not measured';

export function isFigure(value: number | undefined): value is number {
    return value !== undefined && Number.isFinite(value);
}

/** `a / b`, or undefined when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
    return isFigure(a) && isFigure(b) && b !== 0 ? a / b : undefined;
}

export function fmt(value: number | undefined, digits = 2, missing = NOT_MEASURED): string {
    return isFigure(value) ? value.toFixed(digits) : missing;
}

export const ms = (value: number | undefined, missing = NOT_MEASURED) => (isFigure(value) ? `${value.toFixed(1)} ms` : missing);
export const s = (value: number | undefined, missing = NOT_MEASURED) => (isFigure(value) ? `${value.toFixed(1)} s` : missing);
export const mhs = (hashesPerSecond: number | undefined, missing = NOT_MEASURED) =>
    isFigure(hashesPerSecond) ? `${(hashesPerSecond / 1e6).toFixed(2)} MH/s` : missing;
/** A ratio as `1.23x`. */
export const times = (value: number | undefined, digits = 2, missing = NOT_MEASURED) => (isFigure(value) ? `${value.toFixed(digits)}x` : missing);
export const pow2 = (value: number) => `2^${Math.round(Math.log2(value))}`;
/** A figure in bold, or the words for a missing one (not bold: there is nothing to read). */
export const bold = (text: string, value: number | undefined) => (isFigure(value) ? `**${text}**` : text);

/** A target's verdict; a target whose figure is missing is neither met nor missed. */
export function met(ok: boolean | undefined): string {
    return ok === undefined ? '**not measured**' : ok ? '**met**' : '**missed**';
}

/** The verdict of `figure` against `test`, undefined (not measured) without the figure. */
export function verdict(figure: number | undefined, test: (value: number) => boolean): boolean | undefined {
    return isFigure(figure) ? test(figure) : undefined;
}

/** A section's result line; bench/report/document.ts copies every such line into the summary table. */
export const RESULT = 'Result: ';
export const result = (text: string) => `${RESULT}${text}`;

/** Load averages as every section states them. */
export const loads = (before: number, after: number) => `Load average ${fmt(before, 1)} before, ${fmt(after, 1)} after.`;

/** Which backend's rows a section has: the app on the TypeScript engine, and on the real extension where it ran. */
export const BACKEND_LABEL = {
    ts: 'TypeScript engine',
    extension: 'real extension',
} as const;

/** Where the defaults' decision and their rules are documented, as a link from BENCHMARKS.md. */
export const DEFAULTS_DOC = '[Defaults and why](docs/how-it-works.md#defaults-and-why)';
