import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeDataString, toSetCookie } from '../http/setCookie';

describe('Set-Cookie from RpcHttpCookie', () => {
    it('writes every attribute in ASP.NET order', () => {
        const header = toSetCookie({
            name: 'session',
            value: 'a b;c',
            domain: { value: 'example.com' },
            path: { value: '/app' },
            expires: { value: { seconds: 0 } },
            secure: { value: true },
            httpOnly: { value: true },
            sameSite: 'strict',
            maxAge: { value: 3600 },
        });
        assert.equal(
            header,
            'session=a%20b%3Bc; expires=Thu, 01 Jan 1970 00:00:00 GMT; max-age=3600; domain=example.com; path=/app; secure; samesite=strict; httponly'
        );
    });

    it('defaults the path to "/" and maps sameSite as the host does', () => {
        assert.equal(toSetCookie({ name: 'a', value: '1', sameSite: 'none' }), 'a=1; path=/');
        assert.equal(toSetCookie({ name: 'a', value: '1', sameSite: 'explicitNone' }), 'a=1; path=/; samesite=none');
        assert.equal(toSetCookie({ name: 'a', value: '1', sameSite: 'lax', secure: { value: false } }), 'a=1; path=/; samesite=lax');
    });

    it('escapes like Uri.EscapeDataString', () => {
        assert.equal(escapeDataString("a!*'()~-_.z"), 'a%21%2A%27%28%29~-_.z');
    });
});
