/**
 * How a job's view (MCP Apps, src/views/) shows a completed result. A job may give its own renderer: a file
 * `resultView.ts` in its folder that exports `resultView` (scripts/build-views.mjs bundles it into that job's view);
 * without one, the view lays the result out from the job's result schema (src/views/genericResult.ts). Plain data in,
 * plain data out, no DOM: the view draws the sections, unit tests read them, and a renderer runs in Node and the
 * browser alike.
 */

/** A table cell: text, with its first `marked` characters marked (a hash's zero prefix, say) and a tooltip. */
export type Cell = string | { text: string; marked?: number; title?: string; ok?: boolean };

export type ResultSection =
    /** Label and value pairs, in order. */
    | { kind: 'facts'; facts: Array<{ label: string; value: string; title?: string }> }
    /** A table of rows under named columns. */
    | { kind: 'table'; caption: string; columns: string[]; rows: Cell[][] };

export interface ResultView {
    /** The job's name (JobDefinition.name): the view it belongs in. */
    readonly job: string;
    /** The sections of a completed result (the get tool's `result`); it must not throw on a result of another shape. */
    render(result: Record<string, unknown>): ResultSection[];
}

/** A whole number as people read it: 1,048,576. */
export function grouped(value: unknown): string {
    return typeof value === 'number' && Number.isFinite(value) ? value.toLocaleString('en-US') : String(value);
}

/** A duration in milliseconds as people read it: 850 ms, 12.3 s, 4 min 5 s, 2 h 3 min. */
export function duration(ms: number): string {
    if (!Number.isFinite(ms) || ms < 0) return '—';
    if (ms < 1000) return `${Math.round(ms)} ms`;
    const seconds = ms / 1000;
    if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
    const whole = Math.round(seconds);
    const minutes = Math.floor(whole / 60);
    if (minutes < 60) return `${minutes} min ${whole % 60} s`;
    return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
