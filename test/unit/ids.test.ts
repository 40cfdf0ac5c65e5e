import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WORKFLOW_ID_MAX_LENGTH, isWellFormedWorkflowId, newWorkflowId } from '../../src/workflow/ids';

describe('workflow ids', () => {
    it('new ids are well formed and distinct', () => {
        const ids = new Set(Array.from({ length: 1000 }, newWorkflowId));
        assert.equal(ids.size, 1000);
        for (const id of ids) assert.equal(isWellFormedWorkflowId(id), true, id);
    });

    it('accepts up to 100 letters, digits and hyphens', () => {
        assert.equal(WORKFLOW_ID_MAX_LENGTH, 100);
        assert.equal(isWellFormedWorkflowId('a'), true);
        assert.equal(isWellFormedWorkflowId('A-z-0-9'), true);
        assert.equal(isWellFormedWorkflowId('x'.repeat(100)), true);
    });

    it('rejects anything that could change a management URL or is not an id', () => {
        for (const id of ['', 'x'.repeat(101), 'a/b', '../instances', 'a?b=c', 'a#b', 'a b', 'a%2F', 'a_b', 'a.b', 'é', 'a\n']) {
            assert.equal(isWellFormedWorkflowId(id), false, JSON.stringify(id));
        }
    });
});
