import { z } from 'zod';

/**
 * The tasks/list cursor: the position of the last task of a page in the list's order (newest first,
 * then by id). Opaque to clients: base64url JSON.
 */
export interface ListCursor {
    createdMs: number;
    id: string;
}

const cursorSchema = z.strictObject({ createdMs: z.number().int(), id: z.string().max(100) });

export function encodeListCursor(cursor: ListCursor): string {
    return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** The cursor, or undefined for anything this module did not write. */
export function decodeListCursor(text: string): ListCursor | undefined {
    if (text.length > 400) return undefined;
    try {
        const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
        return parsed.success ? parsed.data : undefined;
    } catch {
        return undefined;
    }
}

/** True when the entry comes after the cursor in the list's order. */
export function isAfterCursor(entry: ListCursor, cursor: ListCursor): boolean {
    return entry.createdMs < cursor.createdMs || (entry.createdMs === cursor.createdMs && entry.id > cursor.id);
}
