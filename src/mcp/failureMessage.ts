/**
 * The failure text a user may see: a failed instance's output reduced to its message, with nothing of
 * the internals it may name.
 */

/** Longest `error` text; failure output can be long and is not the place for details. */
export const MAX_ERROR_LENGTH = 200;

/**
 * An unexpected error's first line can still name internals: a URL (the durable client's management
 * endpoint, with its key), a file on the instance, a stack frame's location. The user gets placeholders.
 */
function redactInternals(message: string): string {
    return message
        .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi, '<url>')
        .replace(/(?:\b[A-Za-z]:)?(?:[\\/][\w.@~+-]+){2,}[\\/]?(?::\d+(?::\d+)?)?/g, '<path>');
}

/**
 * A short failure message that is safe to show a user. The host stores a failed instance's output
 * as text such as `Orchestrator function '<orchestrator>' failed: Activity function '<activity>' failed:
 * <message> \n {json details}`; only <message> is kept: no wrappers, details, stack traces or JSON.
 * `fallback` is the job's sentence for a failure that says nothing.
 */
export function safeFailureMessage(output: unknown, fallback: string): string {
    if (typeof output !== 'string') return fallback;
    let message = output.split(/\r?\n/, 1)[0] ?? '';
    const wrapper = /^\s*(?:(?:Orchestrator|Activity) function '[^']*' failed:\s*|[A-Za-z]*Error:\s+)/;
    for (let previous = ''; previous !== message; ) {
        previous = message;
        message = message.replace(wrapper, '');
    }
    // Control characters have no place in a message for a user.
    message = redactInternals(message.replace(/[\u0000-\u001f\u007f]+/g, ' ')).trim();
    if (message === '') return fallback;
    return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
}
