// @ts-check
/**
 * A test reporter (https://nodejs.org/docs/latest-v20.x/api/test.html#custom-reporters) that test/run.mjs gives each
 * file's process beside `spec`: one JSON line per test or suite that ended, so that the run can add up every file's
 * counts, list what failed (in which of several runs), what was skipped and why, and which known defects (todo
 * tests) failed or passed. Node's own summary counts skipped tests only, not a suite skipped as a whole
 * (`describe(…, { skip: reason })`, as testkit/backends.ts does without .NET).
 *
 * Plain JavaScript, like run.mjs: it must load whatever the build did.
 */

/** @typedef {{ outcome: 'pass' | 'fail', kind: 'suite' | 'test', name: string, nesting: number, skip?: string, todo?: string, error?: string, failureType?: string }} Ended */

/** A skip or todo option as its reason, or undefined when it was not set. */
function reasonOf(/** @type {unknown} */ option) {
    if (option === undefined || option === false) return undefined;
    return typeof option === 'string' && option.trim() !== '' ? option.trim() : '(no reason given)';
}

/** The failure's own message (an assertion's, or the error's), without the wrapper Node adds. */
function messageOf(/** @type {any} */ error) {
    const cause = error?.cause ?? error;
    const text = cause instanceof Error || typeof cause?.message === 'string' ? String(cause.message) : String(cause ?? '');
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

export default async function* resultsReporter(/** @type {AsyncIterable<any>} */ source) {
    for await (const event of source) {
        if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
        const { name, nesting, skip, todo, details } = event.data;
        /** @type {Ended} */
        const ended = { outcome: event.type === 'test:pass' ? 'pass' : 'fail', kind: details?.type === 'suite' ? 'suite' : 'test', name, nesting };
        const skipped = reasonOf(skip);
        const known = reasonOf(todo);
        if (skipped !== undefined) ended.skip = skipped;
        if (known !== undefined) ended.todo = known;
        if (event.type === 'test:fail') {
            ended.error = messageOf(details?.error);
            if (typeof details?.error?.failureType === 'string') ended.failureType = details.error.failureType;
        }
        yield JSON.stringify(ended) + '\n';
    }
}
