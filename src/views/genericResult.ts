import { duration, grouped, type Cell, type ResultSection } from '../jobs/resultView';

/**
 * A completed result laid out from the job's result schema (JSON Schema), for a job that gives no renderer of its own
 * (src/jobs/resultView.ts): each scalar a labelled fact, with the field's description as its tooltip; each list of
 * objects a table whose columns are the items' fields; a nested object's fields as facts named by their path. Fields
 * ending in `_ms` read as durations.
 */

interface SchemaNode {
    description?: string;
    properties?: Record<string, SchemaNode>;
    items?: SchemaNode;
}

function node(value: unknown): SchemaNode {
    return typeof value === 'object' && value !== null ? (value as SchemaNode) : {};
}

/** "total_attempts" → "Total attempts"; "elapsed_ms" → "Elapsed". */
export function labelOf(key: string): string {
    const words = key.replace(/_ms$/, '').replace(/[_-]+/g, ' ').trim();
    return words.charAt(0).toUpperCase() + words.slice(1);
}

function valueOf(key: string, value: unknown): string {
    if (typeof value === 'number' && key.endsWith('_ms')) return duration(value);
    if (typeof value === 'number') return grouped(value);
    if (typeof value === 'string') return value;
    return JSON.stringify(value) ?? '';
}

/** The result's keys: the schema's order first, then any it does not name. */
function keysOf(schema: SchemaNode, value: Record<string, unknown>): string[] {
    const named = Object.keys(schema.properties ?? {}).filter((key) => key in value);
    return [...named, ...Object.keys(value).filter((key) => !named.includes(key))];
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function table(key: string, schema: SchemaNode, items: Record<string, unknown>[]): ResultSection {
    const columns = keysOf(node(schema.items), Object.assign({}, ...items) as Record<string, unknown>);
    const rows = items.map((item): Cell[] => columns.map((column) => (column in item ? valueOf(column, item[column]) : '')));
    return { kind: 'table', caption: labelOf(key), columns, rows };
}

export function genericSections(resultSchema: unknown, result: Record<string, unknown>): ResultSection[] {
    const schema = node(resultSchema);
    const facts: Array<{ label: string; value: string; title?: string }> = [];
    const tables: ResultSection[] = [];
    const walk = (at: SchemaNode, value: Record<string, unknown>, path: string[]) => {
        for (const key of keysOf(at, value)) {
            const field = node(at.properties?.[key]);
            const entry = value[key];
            if (Array.isArray(entry) && entry.length > 0 && entry.every(isRecord)) tables.push(table(key, field, entry));
            else if (isRecord(entry)) walk(field, entry, [...path, key]);
            else facts.push({ label: labelOf([...path, key].join(' ')), value: valueOf(key, entry), ...(field.description === undefined ? {} : { title: field.description }) });
        }
    };
    walk(schema, result, []);
    return [...(facts.length > 0 ? [{ kind: 'facts' as const, facts }] : []), ...tables];
}
