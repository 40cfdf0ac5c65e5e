import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ALL_JOBS, type AppOnAzurite, describeOnEachBackend, JOB_FIXTURES, type NodeRun, repoRoot, runNode, startAppOnAzurite } from '@mcp-mining/testkit';

/**
 * The post-deployment smoke check (`npm run smoke`, scripts/smoke/) run as a user runs it, a separate process
 * and a real MCP client, against the running local host on both backends, with a function key required as in
 * Azure: every step must pass, or it would fail against a good deployment too. A short wait budget and a
 * small cap keep it quick; the check finds both out by itself.
 */

const KEY = 'smoke-test-key';
/** The steps in order: mining's contract, with an inline run of every other job the app serves (here all) before the cap. */
const STEPS = [
    'connect',
    'tools',
    'cap count (the first start)',
    'inline',
    'keyed start',
    'work cap (MAX_WORK)',
    'past the budget: poll, cancel',
    ...JOB_FIXTURES.filter((fixture) => fixture.tools.start !== 'start_mining').map((fixture) => `${fixture.job}: inline`),
    'running-workflow cap',
    'unknown id',
    'clean up',
];

function smoke(args: string[], env: Record<string, string>): Promise<NodeRun> {
    return runNode([join(repoRoot, 'dist', 'scripts', 'smoke', 'cli.js'), ...args], { env });
}

describeOnEachBackend('the smoke check against the local host', (backend) => {
    let app: AppOnAzurite;

    before(async () => {
        app = await startAppOnAzurite(`smoke${backend}`, { WAIT_BUDGET_SECONDS: '5', MAX_ACTIVE_WORKFLOWS: '2', ...ALL_JOBS }, { durable: backend, functionKey: KEY });
    });
    after(async () => {
        await app?.stop();
    });

    test('passes every step, prints the figures, and leaves nothing running', async () => {
        const run = await smoke([app.mcpUrl.href, '--json'], { MCP_FUNCTION_KEY: KEY });
        assert.equal(run.code, 0, `the smoke check failed:\n${run.stdout}\n${run.stderr}`);
        const summary = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { ok: boolean; results: { step: string; ok: boolean; figures: Record<string, number> }[] };
        assert.equal(summary.ok, true);
        assert.deepEqual(summary.results.map((r) => r.step), STEPS, 'every step of the contract should have run, in this order');
        assert.match(run.stdout, /latency \(ms\)/);
        assert.match(run.stdout, /refused by MAX_ACTIVE_WORKFLOWS/);
        for (const result of summary.results) {
            for (const [call, ms] of Object.entries(result.figures)) assert.ok(Number.isFinite(ms) && ms >= 0, `${result.step} / ${call}: ${ms}`);
        }

        const list = await fetch(`${app.host.url}/runtime/webhooks/durabletask/instances?runtimeStatus=Running,Pending&top=100`, { headers: { 'x-functions-key': KEY } });
        assert.equal(list.status, 200);
        assert.deepEqual(await list.json(), [], 'the smoke check must cancel every workflow it started');
    });

    test('with an Entra token, fails when the signed-in caller lands in the shared tenant (the platform passed no principal), saying what to check', async () => {
        // The local host validates no token and sets no principal headers: exactly a deployment whose sign-in does not reach the app.
        const run = await smoke([app.mcpUrl.href, '--json'], { MCP_FUNCTION_KEY: KEY, MCP_BEARER_TOKEN: 'a-token-the-local-host-ignores' });
        assert.equal(run.code, 1, run.stdout);
        assert.match(run.stdout, /FAIL {2}caller identity \(Entra sign-in\): the deployment requires sign-in, but this signed-in caller got a workflow of the shared tenant/);
        assert.match(run.stdout, /WEBSITE_AUTH_ENABLED/);
    });

    test('fails at once, exit code 1, with a wrong key; exit code 2 without a URL', async () => {
        const wrong = await smoke([app.mcpUrl.href], { MCP_FUNCTION_KEY: 'not-the-key' });
        assert.equal(wrong.code, 1);
        assert.match(wrong.stderr, /answered 401/);
        const usage = await smoke([], {});
        assert.equal(usage.code, 2);
        assert.match(usage.stderr, /usage: npm run smoke/);
    });
});
