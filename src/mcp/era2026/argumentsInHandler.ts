import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { toolError } from '../toolResults';
import { argumentErrors } from '../tools/argumentErrors';

/**
 * SDK v2's McpServer checks a tool's arguments itself and answers a misfit with "Input validation error:
 * Invalid arguments for tool …" before the argument's own message (its validateToolInput is private). Its
 * public seam is the schema: McpServer takes any Standard Schema (https://standardschema.dev) with a JSON
 * Schema. So the server hands it the tool's zod schema with a check that lets every value through, and the
 * handler checks the arguments with the zod schema, answering as the 2025 era does (../tools/argumentErrors.ts).
 */

/** The zod schema's JSON Schema for tools/list, with a validation that accepts every value. */
export function passThrough(schema: z.ZodObject): StandardSchemaWithJSON {
    const { jsonSchema } = schema['~standard'];
    return { '~standard': { version: 1, vendor: 'checked-in-handler', validate: (value: unknown) => ({ value }), jsonSchema } };
}

/** The arguments as the tool's schema reads them, or the tool error a model reads for a misfit. */
export async function checkArguments<Schema extends z.ZodObject>(schema: Schema, args: unknown): Promise<{ args: z.output<Schema> } | { error: ReturnType<typeof toolError> }> {
    const parsed = await schema.safeParseAsync(args ?? {});
    if (parsed.success) return { args: parsed.data };
    return { error: toolError(argumentErrors(parsed.error) ?? 'The arguments do not fit the tool’s input schema.') };
}
