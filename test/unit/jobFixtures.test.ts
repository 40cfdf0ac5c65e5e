import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../src/config';
import { JOBS, JOB_NAMES } from '../../src/jobs';
import { ALL_JOBS, JOB_FIXTURES } from '@mcp-mining/testkit';

/**
 * The registry (src/jobs/index.ts) is the one list of jobs; the suites that run once per job take its fixture
 * (testkit/jobFixtures.ts). So every registered job has one, named as the job names its tools, with arguments
 * its start tool accepts: a job added without a fixture fails here, by name, not somewhere in an e2e suite.
 */

const config = parseConfig({ TASKHUB_NAME: 'unittests', ...ALL_JOBS });

describe('the job fixtures, against the registry', () => {
    it('one fixture a registered job, in the registry\'s order', () => {
        const missing = JOB_NAMES.filter((name) => !JOB_FIXTURES.some((fixture) => fixture.job === name));
        assert.deepEqual(missing, [], `no fixture in testkit/jobFixtures.ts for ${missing.join(', ')}`);
        assert.deepEqual(JOB_FIXTURES.map((fixture) => fixture.job), [...JOB_NAMES]);
        assert.deepEqual(config.enabledJobs, [...JOB_NAMES], 'ALL_JOBS serves every job');
    });

    for (const job of JOBS) {
        const fixture = JOB_FIXTURES.find((f) => f.job === job.name);
        it(`[${job.name}] names the job's tools and resource scheme, and gives arguments its start tool accepts`, { skip: fixture === undefined && 'no fixture' }, () => {
            if (fixture === undefined) return;
            assert.deepEqual(fixture.tools, { start: job.tools.start.name, get: job.tools.get.name, cancel: job.tools.cancel.name });
            assert.equal(fixture.scheme, job.resource.scheme);
            const schema = job.startInput(config);
            const uses = { inline: fixture.inline, pastBudget: fixture.pastBudget, long: fixture.long, task: fixture.task.args, keyed0: fixture.keyed[0], keyed1: fixture.keyed[1] };
            for (const [use, args] of Object.entries(uses)) {
                const parsed = schema.safeParse(args);
                assert.ok(parsed.success, `${use}: ${JSON.stringify(args)}: ${parsed.error?.message ?? ''}`);
                const plan = job.plan(parsed.data as Record<string, unknown>, config);
                const limit = job.workLimit?.of(config);
                assert.ok(limit === undefined || plan.cost <= limit, `${use}: costs ${plan.cost}, over the job's work limit ${limit}`);
            }
            for (const [args] of fixture.outOfBounds) assert.equal(schema.safeParse(args).success, false, `out of bounds: ${JSON.stringify(args)}`);
        });
    }
});
