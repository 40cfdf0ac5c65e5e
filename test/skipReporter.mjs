// @ts-check
/**
 * A test reporter (https://nodejs.org/docs/latest-v20.x/api/test.html#custom-reporters) that test/run.mjs adds
 * beside `spec`: it writes one JSON line per skipped suite or test ({ kind, name, file, reason }), so the run can
 * say what was skipped and why, and which known defects (todo tests) failed or passed this time. Node's own summary counts skipped tests only: a suite skipped as a whole
 * (`describe(…, { skip: reason })`, as testkit/backends.ts does without .NET) is in none of its counts.
 *
 * Plain JavaScript, like run.mjs: it must load whatever the build did.
 */
export default async function* skipReporter(/** @type {AsyncIterable<any>} */ source) {
    for await (const event of source) {
        if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
        const { skip, todo, name, file, details } = event.data;
        if (todo !== undefined && todo !== false) {
            // A known defect kept running (`test(…, { todo: reason })`): its failure does not fail the run, so say it.
            const reason = typeof todo === 'string' && todo.trim() !== '' ? todo.trim() : '(no reason given)';
            yield JSON.stringify({ kind: 'todo', name, file: file ?? '', reason, failed: event.type === 'test:fail' }) + '\n';
            continue;
        }
        if (skip === undefined || skip === false) continue;
        const reason = typeof skip === 'string' && skip.trim() !== '' ? skip.trim() : '(no reason given)';
        yield JSON.stringify({ kind: details?.type === 'suite' ? 'suite' : 'test', name, file: file ?? '', reason }) + '\n';
    }
}
