import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FOREIGN_HOST, FOREIGN_ORIGIN, foreignRequestRefusal, isLoopbackAddress } from '../http/loopbackGuard';

describe('loopbackGuard', () => {
    it('on a loopback connection serves only loopback Host names', () => {
        for (const host of ['127.0.0.1:7', 'localhost:7', 'LOCALHOST.:7', 'app.localhost:7', '127.9.9.9', '[::1]:7']) {
            assert.equal(foreignRequestRefusal({ host }, true), undefined, host);
        }
        for (const host of ['attacker.example:7', '127.0.0.1.nip.io:7', 'localhost.attacker.example', '0.0.0.0:7', '10.0.0.2', '', 'a b']) {
            assert.equal(foreignRequestRefusal({ host }, true), FOREIGN_HOST, host);
        }
        assert.equal(foreignRequestRefusal({}, true), FOREIGN_HOST);
    });

    it('serves no Origin and loopback origins; refuses other origins, null, several, paths and cross-site fetches', () => {
        const host = '127.0.0.1:7';
        for (const origin of ['http://localhost:6274', 'http://127.0.0.1:7', 'http://127.0.0.1:7/', 'HTTP://LOCALHOST:1']) {
            assert.equal(foreignRequestRefusal({ host, origin }, true), undefined, origin);
        }
        for (const origin of ['https://attacker.example', 'null', 'http://127.0.0.1:7/page', 'http://127.0.0.1:7, https://a.example', 'x']) {
            assert.equal(foreignRequestRefusal({ host, origin }, true), FOREIGN_ORIGIN, origin);
        }
        assert.equal(foreignRequestRefusal({ host, 'sec-fetch-site': 'cross-site' }, true), FOREIGN_ORIGIN);
        assert.equal(foreignRequestRefusal({ host, 'sec-fetch-site': 'same-site' }, true), undefined);
    });

    it('on another interface takes any Host, and of origins only its own page and loopback ones', () => {
        assert.equal(foreignRequestRefusal({ host: '192.168.1.5:7' }, false), undefined);
        assert.equal(foreignRequestRefusal({ host: '192.168.1.5:7', origin: 'http://192.168.1.5:7' }, false), undefined);
        assert.equal(foreignRequestRefusal({ host: '192.168.1.5:7', origin: 'https://attacker.example' }, false), FOREIGN_ORIGIN);
        // Another port of the same machine is another origin: a page served there is not the host's own.
        assert.equal(foreignRequestRefusal({ host: '192.168.1.5:7', origin: 'http://192.168.1.5:8' }, false), FOREIGN_ORIGIN);
        assert.equal(foreignRequestRefusal({ host: '192.168.1.5:7', origin: 'http://192.168.1.5' }, false), FOREIGN_ORIGIN);
    });

    it('knows a loopback socket address, IPv4-mapped included', () => {
        for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopbackAddress(address), address);
        for (const address of ['0.0.0.0', '::', '192.168.1.5', '::ffff:10.0.0.1', undefined]) assert.ok(!isLoopbackAddress(address), String(address));
    });
});
