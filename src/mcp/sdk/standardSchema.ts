import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

/**
 * Seam, @modelcontextprotocol/server 2.4.0: a tool's schemas as SDK v2's McpServer takes them. Its public seam is
 * the schema itself: any Standard Schema with a JSON Schema (https://standardschema.dev). Two behaviours of
 * McpServer are answered here:
 * - it checks a tool's arguments itself and answers a misfit with "Input validation error: Invalid arguments for
 *   tool …" before the argument's own message (its validateToolInput is private); so the input schema it gets lets
 *   every value through, and the handler checks the arguments (../tools/argumentErrors.ts), as the 2025 era does;
 * - it converts every schema to JSON Schema again on each tools/list and each registration, and the server is built
 *   per request; so the JSON Schema each wrapper gives is converted once, on first use, and kept.
 * The output schema keeps zod's own validation: McpServer holds each result to it. Canary: test/unit/sdkSeams.test.ts.
 */

type JsonSchemaOf = (options: { target: string }) => Record<string, unknown>;

/** zod's conversion of one direction, once per target. */
function once(convert: JsonSchemaOf): JsonSchemaOf {
    const byTarget = new Map<string, Record<string, unknown>>();
    return (options) => {
        let json = byTarget.get(options.target);
        if (json === undefined) {
            json = convert(options);
            byTarget.set(options.target, json);
        }
        return json;
    };
}

function withJsonOnce(schema: z.ZodObject, validate: StandardSchemaWithJSON['~standard']['validate']): StandardSchemaWithJSON {
    const { jsonSchema, vendor } = schema['~standard'];
    return { '~standard': { version: 1, vendor, validate, jsonSchema: { input: once(jsonSchema.input), output: once(jsonSchema.output) } } };
}

/** The input schema for McpServer: zod's JSON Schema for tools/list, a validation that accepts every value. */
export function argumentsSchema(schema: z.ZodObject): StandardSchemaWithJSON {
    return withJsonOnce(schema, (value: unknown) => ({ value }));
}

/** The output schema for McpServer: zod's validation, its JSON Schema converted once. */
export function resultSchema(schema: z.ZodObject): StandardSchemaWithJSON {
    return withJsonOnce(schema, schema['~standard'].validate);
}
