import { z } from 'zod';

/**
 * The tasks/list cursor: the Durable management API's continuation token for the next page of the
 * caller's instances. Opaque to clients: base64url JSON. It only says where to go on: the query that
 * follows it is still limited to the caller's id prefix (and the task store filters by tenant again), so
 * a cursor made up by a client can skip or repeat the caller's own tasks, never show another's.
 */
export interface ListCursor {
    token: string;
}

/** Azure Storage's tokens are small JSON; anything far longer is not one of ours. */
const MAX_CURSOR_LENGTH = 4000;

const cursorSchema = z.strictObject({ token: z.string().min(1).max(MAX_CURSOR_LENGTH) });

export function encodeListCursor(cursor: ListCursor): string {
    return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** The cursor, or undefined for anything this module did not write. */
export function decodeListCursor(text: string): ListCursor | undefined {
    if (text.length > (MAX_CURSOR_LENGTH * 4) / 3 + 100) return undefined;
    try {
        const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
        return parsed.success ? parsed.data : undefined;
    } catch {
        return undefined;
    }
}
