/**
 * A test's precondition (a tool installed, a platform), for its `skip` option: met, the test runs; missing,
 * it is skipped with the reason shown in the report, and under CI=true (where every precondition must hold)
 * the test file fails instead, so that CI never passes a test it did not run.
 *
 *   test('builds the .NET client', { skip: unlessAvailable(hasDotnet(), '.NET SDK not installed') }, async () => …);
 */
export function unlessAvailable(met: boolean, missing: string): string | false {
    if (met) return false;
    if (process.env.CI?.trim().toLowerCase() === 'true') {
        throw new Error(`Precondition missing under CI=true: ${missing}`);
    }
    return missing;
}
