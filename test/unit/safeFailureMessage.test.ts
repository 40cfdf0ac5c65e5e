import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as failureMessage from '../../src/mcp/failureMessage';
import { MINING } from '../../src/jobs/mining/job';

const safeFailureMessage = (output: unknown) => failureMessage.safeFailureMessage(output, MINING.failedFallback);

/** A failed workflow's `error` is shown to users: what the host stored must not leak internals through it. */
describe('safeFailureMessage', () => {
    it('keeps a validation message as written', () => {
        const output = "Orchestrator function 'MineChain' failed: Activity function 'MineBlock' failed: Invalid MineBlock input: difficulty must be an integer from 0 to 32\n{\"StackTrace\":\"...\"}";
        assert.equal(safeFailureMessage(output), 'Invalid MineBlock input: difficulty must be an integer from 0 to 32');
        assert.equal(safeFailureMessage('Error: blocks must be 1/2 of the total'), 'blocks must be 1/2 of the total');
    });

    it('replaces URLs, file paths and code locations with placeholders', () => {
        const cases: [string, string][] = [
            [
                "Activity function 'MineBlock' failed: ENOENT: no such file or directory, open '/home/site/wwwroot/dist/src/jobs/mining/searchWorker.js'",
                "ENOENT: no such file or directory, open '<path>'",
            ],
            [
                'Error: request to http://127.0.0.1:41234/durabletask/instances/x?code=secret failed',
                'request to <url> failed',
            ],
            ['TypeError: x is not a function at /opt/app/dist/src/a.js:12:5', 'x is not a function at <path>'],
            ['Error: cannot open C:\\home\\site\\wwwroot\\host.json', 'cannot open <path>'],
        ];
        for (const [output, expected] of cases) assert.equal(safeFailureMessage(output), expected);
    });
});
