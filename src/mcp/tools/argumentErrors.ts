/**
 * What a model reads when a tool's arguments do not fit its schema: each issue's own message, said once.
 * Every message of the tools' schemas names its argument and bound ("difficulty must be an integer from 0
 * to 32"), so nothing else is needed; both SDKs would prefix "Input validation error: Invalid arguments for
 * tool …" and append the path, which repeats the argument. Both eras' servers use this (issue 24, point 6).
 */

/** The issues' messages, deduplicated and joined; undefined when the error carries none. */
export function argumentErrors(error: unknown): string | undefined {
    const issues = typeof error === 'object' && error !== null && 'issues' in error ? (error as { issues: unknown }).issues : undefined;
    const messages = Array.isArray(issues) ? issues.map((issue) => (issue as { message?: unknown }).message).filter((m) => typeof m === 'string') : [];
    return messages.length > 0 ? [...new Set(messages)].join('; ') : undefined;
}
