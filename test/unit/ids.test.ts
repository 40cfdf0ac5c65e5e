import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    WORKFLOW_ID_MAX_LENGTH,
    isTenantWorkflowId,
    isWellFormedWorkflowId,
    keyedWorkflowId,
    newWorkflowId,
} from '../../src/workflow/ids';
import { principalTenant, SHARED_TENANT } from '../../src/workflow/tenant';
import { attackIds } from '../support/attackIds';

describe('workflow ids', () => {
    it('new ids are well formed and distinct', () => {
        const ids = new Set(Array.from({ length: 1000 }, () => newWorkflowId(SHARED_TENANT)));
        assert.equal(ids.size, 1000);
        for (const id of ids) assert.equal(isTenantWorkflowId(SHARED_TENANT, id), true, id);
    });

    it("start with the tenant's tag, so another tenant's id is told apart without a backend call", () => {
        const alice = principalTenant('aad', 'alice');
        const bob = principalTenant('aad', 'bob');
        assert.match(alice.tag, /^p[0-9a-f]{20}$/);
        assert.notEqual(alice.tag, bob.tag);
        assert.notEqual(alice.tag, principalTenant('github', 'alice').tag);
        const id = newWorkflowId(alice);
        assert.equal(isTenantWorkflowId(alice, id), true);
        assert.equal(isTenantWorkflowId(bob, id), false);
        assert.equal(isTenantWorkflowId(SHARED_TENANT, id), false);
        assert.equal(isTenantWorkflowId(SHARED_TENANT, newWorkflowId(SHARED_TENANT).replace('shared-', 'shared')), false);
    });

    it('name one well-formed id per tenant and idempotency key, whatever the key holds', () => {
        const alice = principalTenant('aad', 'alice');
        for (const key of ['k', 'job/1?x=../..', 'é'.repeat(255), ' ']) {
            const id = keyedWorkflowId(alice, key);
            assert.equal(id, keyedWorkflowId(alice, key));
            assert.equal(isTenantWorkflowId(alice, id), true, id);
            assert.ok(id.length <= WORKFLOW_ID_MAX_LENGTH);
        }
        assert.notEqual(keyedWorkflowId(alice, 'k'), keyedWorkflowId(alice, 'k2'));
        assert.notEqual(keyedWorkflowId(alice, 'k'), keyedWorkflowId(SHARED_TENANT, 'k'));
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

    it("refuses ids that carry the caller's own valid prefix but reach for another tenant's workflow", () => {
        const alice = principalTenant('aad', 'alice');
        const bob = principalTenant('aad', 'bob');
        const victim = newWorkflowId(alice);
        for (const attacker of [SHARED_TENANT, bob]) {
            const ids = attackIds(attacker.tag, victim);
            for (const id of ids) {
                assert.ok(id.startsWith(`${attacker.tag}-`), 'the prefix check alone would let it through');
                assert.equal(isTenantWorkflowId(attacker, id), false, JSON.stringify(id));
            }
        }
        // The longest id of the alphabet is still the caller's; one character more is not.
        const longest = `shared-${'a'.repeat(WORKFLOW_ID_MAX_LENGTH - 'shared-'.length)}`;
        assert.equal(isTenantWorkflowId(SHARED_TENANT, longest), true);
        assert.equal(isTenantWorkflowId(SHARED_TENANT, `${longest}a`), false);
    });
});
