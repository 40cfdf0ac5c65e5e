import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAuthorized, presentedKey } from '../http/functionKeys';

describe('function keys', () => {
    it('reads the x-functions-key header before the code query parameter', () => {
        assert.equal(presentedKey({ 'x-functions-key': 'h' }, new URLSearchParams('code=q')), 'h');
        assert.equal(presentedKey({}, new URLSearchParams('code=q&code=r')), 'q');
        assert.equal(presentedKey({}, new URLSearchParams('')), undefined);
    });

    it('lets everything through when no key is configured, as func start does', () => {
        assert.ok(isAuthorized('function', undefined, undefined));
        assert.ok(isAuthorized('admin', undefined, 'whatever'));
    });

    it('never asks anonymous functions for a key', () => {
        assert.ok(isAuthorized('anonymous', 'secret', undefined));
        assert.ok(isAuthorized('Anonymous', 'secret', 'wrong'));
    });

    it('requires the configured key for function and admin levels', () => {
        for (const level of ['function', 'admin', 'Function']) {
            assert.ok(isAuthorized(level, 'secret', 'secret'), level);
            assert.ok(!isAuthorized(level, 'secret', 'Secret'), level);
            assert.ok(!isAuthorized(level, 'secret', ''), level);
            assert.ok(!isAuthorized(level, 'secret', undefined), level);
        }
    });
});
