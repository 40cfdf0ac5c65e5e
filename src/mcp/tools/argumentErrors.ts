import type { z } from 'zod';
import { toolError, type ToolResult } from '../toolResults';

/**
 * What a model reads when a tool's arguments do not fit its schema: each issue's own message, said once. Every
 * message of the tools' schemas names its argument and bound ("difficulty must be an integer from 0 to 32"); both
 * SDKs would prefix "Input validation error: Invalid arguments for tool …" and append the path, repeating it.
 */
export async function checkArguments<Schema extends z.ZodObject>(schema: Schema, args: unknown): Promise<{ args: z.output<Schema> } | { error: ToolResult; text: string }> {
    const parsed = await schema.safeParseAsync(args ?? {});
    if (parsed.success) return { args: parsed.data };
    const messages = parsed.error.issues.map((issue) => issue.message);
    const text = messages.length > 0 ? [...new Set(messages)].join('; ') : 'The arguments do not fit the tool’s input schema.';
    return { error: toolError(text), text };
}
