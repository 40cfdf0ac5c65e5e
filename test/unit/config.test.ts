import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { JOB_NAMES } from '../../src/jobs';
import { ConfigError, SETTING_NAMES, parseConfig, parseTimeSpanSeconds, readFunctionTimeoutSeconds } from '../../src/config';

const BASE = { TASKHUB_NAME: 'mininglocal' };

function rejects(env: Record<string, string>, pattern: RegExp, functionTimeoutSeconds?: number): void {
    assert.throws(() => parseConfig({ ...BASE, ...env }, functionTimeoutSeconds), (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.match(error.message, pattern);
        return true;
    });
}

describe('configuration', () => {
    it('takes the defaults of docs/contract.md (Settings) when only the task hub is set', () => {
        const config = parseConfig(BASE);
        assert.equal(config.waitBudgetSeconds, 20);
        assert.equal(config.pollAfterSeconds, 5);
        assert.equal(config.maxDifficulty, 32);
        assert.equal(config.chainLength, 4);
        assert.equal(config.maxBlocks, 16);
        assert.equal(config.taskHubName, 'mininglocal');
        assert.equal(config.maxResultChars, 20_000);
        assert.ok(config.defaultDifficulty >= 0 && config.defaultDifficulty <= config.maxDifficulty);
    });

    it('reads every setting docs/contract.md lists, and blank values take the default', () => {
        assert.deepEqual([...SETTING_NAMES].sort(), [
            'ALLOWED_ORIGINS',
            'CHAIN_LENGTH',
            'DEFAULT_DIFFICULTY',
            'ENABLED_JOBS',
            'MAX_ACTIVE_WORKFLOWS',
            'MAX_ACTIVE_WORKFLOWS_TOTAL',
            'MAX_BLOCKS',
            'MAX_DIFFICULTY',
            'MAX_RESULT_CHARS',
            'MAX_STARTS_PER_MINUTE',
            'MAX_WORK',
            'MAX_WORKFLOW_SECONDS',
            'MCP_FUNCTION_KEY_REQUIRED',
            'PARALLEL_RANGES',
            'POLL_AFTER_SECONDS',
            'RANGE_SIZE',
            'TASKHUB_NAME',
            'WAIT_BUDGET_SECONDS',
        ]);
        const config = parseConfig({
            ...BASE,
            WAIT_BUDGET_SECONDS: '2.5',
            POLL_AFTER_SECONDS: '3',
            DEFAULT_DIFFICULTY: '10',
            MAX_DIFFICULTY: '24',
            CHAIN_LENGTH: ' ',
            MAX_BLOCKS: '8',
            MAX_RESULT_CHARS: '5000',
        });
        assert.deepEqual(config, {
            waitBudgetSeconds: 2.5,
            pollAfterSeconds: 3,
            defaultDifficulty: 10,
            maxDifficulty: 24,
            chainLength: 4,
            maxBlocks: 8,
            taskHubName: 'mininglocal',
            maxResultChars: 5000,
            maxActiveWorkflows: 5,
            maxActiveWorkflowsTotal: 40,
            maxStartsPerMinute: 30,
            maxWork: 2 ** 34,
            maxWorkflowSeconds: 7200,
            functionKeyRequired: true,
            allowedOrigins: [],
            enabledJobs: ['mining'],
            parallelRanges: 4,
            rangeSize: 2 ** 23,
        });
    });

    it('PARALLEL_RANGES 1 to 16 (default 4) and RANGE_SIZE 1024 to 2^27 (default 2^23)', () => {
        const config = parseConfig({ ...BASE, PARALLEL_RANGES: '16', RANGE_SIZE: '1024' });
        assert.equal(config.parallelRanges, 16);
        assert.equal(config.rangeSize, 1024);
        rejects({ PARALLEL_RANGES: '0' }, /PARALLEL_RANGES must be at least 1/);
        rejects({ PARALLEL_RANGES: '17' }, /PARALLEL_RANGES must be at most 16/);
        rejects({ RANGE_SIZE: '1023' }, /RANGE_SIZE must be at least 1024/);
        rejects({ RANGE_SIZE: String(2 ** 27 + 1) }, /RANGE_SIZE must be at most 134217728/);
    });

    it('ENABLED_JOBS: a comma list of the registry\'s jobs, mining alone by default; an unknown job stops the app', () => {
        const known = JOB_NAMES.join(', ');
        assert.deepEqual(parseConfig({ ...BASE, ENABLED_JOBS: ' ' }).enabledJobs, ['mining']);
        const reversed = [...JOB_NAMES].reverse();
        assert.deepEqual(parseConfig({ ...BASE, ENABLED_JOBS: [...reversed, ...reversed].join(', ') }).enabledJobs, reversed);
        // An empty entry (a trailing or doubled comma) is no job; a list of nothing but commas names none, and stops the app.
        assert.deepEqual(parseConfig({ ...BASE, ENABLED_JOBS: `${JOB_NAMES.join(',,')},` }).enabledJobs, [...JOB_NAMES]);
        assert.throws(() => parseConfig({ ...BASE, ENABLED_JOBS: ',,' }), new RegExp(`ENABLED_JOBS must name at least one of ${known} \\(got ",,"\\)`));
        const unknown = `${JOB_NAMES.join(',')},no_such_job`;
        assert.throws(() => parseConfig({ ...BASE, ENABLED_JOBS: unknown }), (error: unknown) =>
            error instanceof Error && error.message.includes(`ENABLED_JOBS must list jobs from ${known}, separated by commas (got "${unknown}")`)
        );
    });

    it('names the setting and the problem for a bad value', () => {
        rejects({ POLL_AFTER_SECONDS: 'soon' }, /POLL_AFTER_SECONDS .*"soon"/);
        rejects({ POLL_AFTER_SECONDS: '0' }, /POLL_AFTER_SECONDS must be at least 1/);
        rejects({ MAX_DIFFICULTY: '65' }, /MAX_DIFFICULTY must be at most 64/);
        rejects({ MAX_ACTIVE_WORKFLOWS_TOTAL: '0' }, /MAX_ACTIVE_WORKFLOWS_TOTAL must be at least 1/);
        rejects({ MAX_STARTS_PER_MINUTE: 'many' }, /MAX_STARTS_PER_MINUTE .*"many"/);
        rejects({ CHAIN_LENGTH: '2.5' }, /CHAIN_LENGTH must be an integer/);
        rejects({ WAIT_BUDGET_SECONDS: '-1' }, /WAIT_BUDGET_SECONDS must be at least 0/);
        rejects({ WAIT_BUDGET_SECONDS: '600' }, /WAIT_BUDGET_SECONDS must be at most 225/);
        rejects({ TASKHUB_NAME: 'bad-hub' }, /TASKHUB_NAME/);
        rejects({ MAX_RESULT_CHARS: '999' }, /MAX_RESULT_CHARS must be at least 1000/);
        assert.throws(() => parseConfig({}), /TASKHUB_NAME is required/);
    });

    it('cross-checks the defaults against the bounds', () => {
        rejects({ DEFAULT_DIFFICULTY: '20', MAX_DIFFICULTY: '16' }, /DEFAULT_DIFFICULTY must not exceed MAX_DIFFICULTY \(16\)/);
        rejects({ CHAIN_LENGTH: '20', MAX_BLOCKS: '16' }, /CHAIN_LENGTH must not exceed MAX_BLOCKS \(16\)/);
    });

    it('keeps the wait budget below functionTimeout', () => {
        assert.equal(parseConfig({ ...BASE, WAIT_BUDGET_SECONDS: '20' }, 600).waitBudgetSeconds, 20);
        rejects({ WAIT_BUDGET_SECONDS: '20' }, /WAIT_BUDGET_SECONDS \(20\) must be at least 5 s below host.json functionTimeout \(24 s\)/, 24);
    });

    it('reads functionTimeout from host.json, or its app-setting override', () => {
        assert.equal(parseTimeSpanSeconds('00:10:00'), 600);
        assert.equal(parseTimeSpanSeconds('1.02:03:04'), 93784);
        assert.equal(parseTimeSpanSeconds('-1'), undefined);
        assert.throws(() => parseTimeSpanSeconds('ten minutes'), /functionTimeout/);
        const dir = mkdtempSync(join(tmpdir(), 'hostjson-'));
        writeFileSync(join(dir, 'host.json'), JSON.stringify({ version: '2.0', functionTimeout: '00:05:00' }));
        assert.equal(readFunctionTimeoutSeconds(dir, {}), 300);
        assert.equal(readFunctionTimeoutSeconds(dir, { AzureFunctionsJobHost__functionTimeout: '00:01:00' }), 60);
        assert.equal(readFunctionTimeoutSeconds(join(dir, 'missing'), {}), undefined);
    });

    it('local.settings.json runs the tuned default difficulty', () => {
        const appRoot = join(__dirname, '..', '..', '..');
        const local = JSON.parse(readFileSync(join(appRoot, 'local.settings.json'), 'utf8')) as { Values: Record<string, string> };
        assert.equal(parseConfig(local.Values).defaultDifficulty, parseConfig(BASE).defaultDifficulty);
    });

    it('the shipped host.json leaves room for the default budget', () => {
        const appRoot = join(__dirname, '..', '..', '..');
        const timeout = readFunctionTimeoutSeconds(appRoot, {});
        assert.ok(timeout !== undefined);
        assert.doesNotThrow(() => parseConfig(BASE, timeout));
    });
});
