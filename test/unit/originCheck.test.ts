import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../src/config';
import { checkOrigin, FOREIGN_HOST, FOREIGN_ORIGIN, isLoopbackName, type OriginPolicy } from '../../src/mcp/http/originCheck';

/** Origin and Host validation of /api/mcp: browsers' pages of other origins and rebound host names are refused. */

const LOCAL: OriginPolicy = { ownHost: 'localhost:7071', allowedOrigins: [] };
const AZURE: OriginPolicy = { ownHost: 'mining-app.azurewebsites.net', allowedOrigins: ['https://tools.example'] };

function check(policy: OriginPolicy, headers: Record<string, string>, url = 'http://localhost:7071/api/mcp') {
    return checkOrigin(new Headers(headers), url, policy);
}

describe('Origin and Host validation', () => {
    it('serves clients that send no Origin (SDKs, VS Code, the Inspector proxy), locally and in Azure', () => {
        assert.equal(check(LOCAL, { host: 'localhost:7071' }), undefined);
        assert.equal(check(LOCAL, { host: '127.0.0.1:7071' }), undefined);
        assert.equal(check(LOCAL, { host: '[::1]:7071' }), undefined);
        assert.equal(check(AZURE, { host: 'mining-app.azurewebsites.net' }, 'https://mining-app.azurewebsites.net/api/mcp'), undefined);
    });

    it('refuses a foreign Origin with 403, in any spelling of the header', () => {
        for (const name of ['Origin', 'origin', 'ORIGIN', 'oRiGiN']) {
            assert.deepEqual(check(LOCAL, { host: 'localhost:7071', [name]: 'https://attacker.example' }), { status: 403, message: FOREIGN_ORIGIN });
        }
        assert.deepEqual(
            check(AZURE, { host: 'mining-app.azurewebsites.net', origin: 'https://attacker.example' }, 'https://mining-app.azurewebsites.net/api/mcp')?.status,
            403
        );
    });

    it('accepts the server\'s own origin, ALLOWED_ORIGINS, and on a loopback server other loopback origins', () => {
        assert.equal(check(LOCAL, { host: 'localhost:7071', origin: 'http://localhost:7071' }), undefined);
        assert.equal(check(LOCAL, { host: 'localhost:7071', origin: 'http://localhost:6274' }), undefined);
        assert.equal(check(LOCAL, { host: '127.0.0.1:7071', origin: 'http://127.0.0.1:6274' }), undefined);
        const azure = (origin: string) => check(AZURE, { host: 'mining-app.azurewebsites.net', origin }, 'https://mining-app.azurewebsites.net/api/mcp');
        assert.equal(azure('https://mining-app.azurewebsites.net'), undefined);
        assert.equal(azure('HTTPS://MINING-APP.AZUREWEBSITES.NET'), undefined);
        assert.equal(azure('https://tools.example'), undefined);
        // A loopback page may not call a server in Azure: loopback is only "the same machine" for a local server.
        assert.equal(azure('http://localhost:6274')?.status, 403);
    });

    it('refuses a rebound host name on a loopback server, even with a matching Origin', () => {
        for (const host of ['attacker.example:7071', 'attacker.example', '127.0.0.1.attacker.example', 'localhost.attacker.example', '0.0.0.0:7071', '10.0.0.2:7071', '']) {
            assert.deepEqual(check(LOCAL, { host }), { status: 403, message: FOREIGN_HOST }, host);
            assert.deepEqual(check(LOCAL, { host, origin: `http://${host}` })?.status, 403, host);
        }
    });

    it('refuses odd origins: null, several, a path, userinfo, other schemes, garbage (fuzzed)', () => {
        const odd = ['null', 'http://localhost:7071, https://attacker.example', 'http://localhost:7071/path', 'http://user@localhost:7071', 'file://', 'chrome-extension://abc', 'javascript:alert(1)', ' ', '*', 'localhost:7071', 'http://', 'http://[::1'];
        for (const origin of odd) assert.equal(check(LOCAL, { host: 'localhost:7071', origin })?.status, 403, JSON.stringify(origin));
        // Random bytes: never an exception, always a decision.
        let seed = 7;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
        for (let i = 0; i < 500; i++) {
            const text = Array.from({ length: next() % 40 }, () => String.fromCharCode(32 + (next() % 95))).join('');
            const answer = check(LOCAL, { host: 'localhost:7071', origin: text });
            assert.ok(answer === undefined || answer.status === 403);
            if (answer === undefined) assert.ok(/^https?:\/\/(localhost|127\.|\[::1\])/i.test(text.trim()), text);
        }
    });

    it('takes a port as part of the origin: the own host or an allowed origin on another port is refused', () => {
        const azure = (origin: string) => check(AZURE, { host: 'mining-app.azurewebsites.net', origin }, 'https://mining-app.azurewebsites.net/api/mcp');
        for (const origin of ['https://tools.example:8443', 'http://tools.example', 'https://mining-app.azurewebsites.net:8443']) {
            assert.deepEqual(azure(origin), { status: 403, message: FOREIGN_ORIGIN }, origin);
        }
        const withPort: OriginPolicy = { ownHost: 'mining-app.azurewebsites.net', allowedOrigins: ['https://tools.example:8443'] };
        const allowed = (origin: string) => check(withPort, { host: 'mining-app.azurewebsites.net', origin }, 'https://mining-app.azurewebsites.net/api/mcp');
        assert.equal(allowed('https://tools.example:8443'), undefined);
        assert.equal(allowed('https://tools.example')?.status, 403);
        assert.equal(allowed('https://tools.example:9443')?.status, 403);
    });

    it('without WEBSITE_HOSTNAME takes the server to be a loopback one: the strict Host rule, loopback origins only', () => {
        const unknown: OriginPolicy = { ownHost: undefined, allowedOrigins: [] };
        assert.equal(check(unknown, { host: 'localhost:7071' }), undefined);
        assert.equal(check(unknown, { host: 'localhost:7071', origin: 'http://localhost:6274' }), undefined);
        assert.deepEqual(check(unknown, { host: 'attacker.example' }), { status: 403, message: FOREIGN_HOST });
        assert.deepEqual(check(unknown, { host: 'localhost:7071', origin: 'https://attacker.example' }), { status: 403, message: FOREIGN_ORIGIN });
    });

    it('knows the loopback names', () => {
        for (const name of ['localhost', 'app.localhost', '127.0.0.1', '127.255.0.9', '[::1]']) assert.ok(isLoopbackName(name), name);
        for (const name of ['localhost.example', '128.0.0.1', '127.0.0.256', '0.0.0.0', '[::]', 'example.com']) assert.ok(!isLoopbackName(name), name);
    });

    it('reads ALLOWED_ORIGINS as a comma-separated list, normalized, and names a bad entry', () => {
        const config = parseConfig({ TASKHUB_NAME: 'unittests', ALLOWED_ORIGINS: ' https://Tools.Example , http://localhost:6274,,' });
        assert.deepEqual(config.allowedOrigins, ['https://tools.example', 'http://localhost:6274']);
        assert.deepEqual(parseConfig({ TASKHUB_NAME: 'unittests' }).allowedOrigins, []);
        // A doubled comma in the middle is no origin either.
        assert.deepEqual(parseConfig({ TASKHUB_NAME: 'unittests', ALLOWED_ORIGINS: 'https://a.example,,https://b.example' }).allowedOrigins, ['https://a.example', 'https://b.example']);
        assert.throws(() => parseConfig({ TASKHUB_NAME: 'unittests', ALLOWED_ORIGINS: 'tools.example' }), /ALLOWED_ORIGINS/);
        assert.throws(() => parseConfig({ TASKHUB_NAME: 'unittests', ALLOWED_ORIGINS: 'https://tools.example/app' }), /ALLOWED_ORIGINS/);
    });
});
