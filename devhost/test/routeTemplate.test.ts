import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRouteConstraint } from '../http/routeConstraints';
import {
    comparePrecedence,
    joinRoutePrefix,
    matchRouteTemplate,
    parseRouteTemplate,
    RouteTemplateError,
    splitRequestPath,
} from '../http/routeTemplate';

function match(template: string, path: string): Record<string, string> | undefined {
    return matchRouteTemplate(parseRouteTemplate(template), splitRequestPath(path));
}

describe('route templates: literals and parameters', () => {
    it('matches literals case-insensitively and ignores one trailing slash', () => {
        assert.deepEqual(match('api/Hello', '/API/hello'), {});
        assert.deepEqual(match('api/hello', '/api/hello/'), {});
        assert.equal(match('api/hello', '/api/hello/x'), undefined);
        assert.equal(match('api/hello', '/api'), undefined);
        assert.equal(match('api/hello', '/api//hello'), undefined);
    });

    it('captures parameters, decoding the path but keeping %2F', () => {
        assert.deepEqual(match('api/users/{id}/posts/{post}', '/api/users/42/posts/a%20b'), { id: '42', post: 'a b' });
        assert.deepEqual(match('api/files/{name}', '/api/files/a%2Fb'), { name: 'a%2Fb' });
        assert.equal(match('api/users/{id}', '/api/users'), undefined);
    });

    it('handles optional parameters and defaults', () => {
        assert.deepEqual(match('api/opt/{a?}', '/api/opt'), {});
        assert.deepEqual(match('api/opt/{a?}', '/api/opt/x'), { a: 'x' });
        assert.deepEqual(match('api/lang/{lang=en}', '/api/lang'), { lang: 'en' });
        assert.deepEqual(match('api/lang/{lang=en}', '/api/lang/fr'), { lang: 'fr' });
        assert.deepEqual(match('api/{a?}/{b?}', '/api'), {});
    });

    it('captures the rest of the path in a catch-all, trailing slash included', () => {
        assert.deepEqual(match('api/files/{*path}', '/api/files/a/b/c.txt'), { path: 'a/b/c.txt' });
        assert.deepEqual(match('api/files/{**path}', '/api/files/a/b/'), { path: 'a/b/' });
        assert.deepEqual(match('api/files/{*path}', '/api/files'), {});
        assert.deepEqual(match('api/files/{*path=index}', '/api/files'), { path: 'index' });
    });

    it('matches complex segments right to left', () => {
        assert.deepEqual(match('api/{name}.{ext}', '/api/archive.tar.gz'), { name: 'archive.tar', ext: 'gz' });
        assert.deepEqual(match('api/{name}.{ext?}', '/api/readme'), { name: 'readme' });
        assert.deepEqual(match('api/{name}.{ext?}', '/api/readme.md'), { name: 'readme', ext: 'md' });
        assert.deepEqual(match('api/v{version}', '/api/V2'), { version: '2' });
        assert.equal(match('api/v{version}', '/api/2'), undefined);
        assert.deepEqual(match('api/{a}-{b}', '/api/x-y'), { a: 'x', b: 'y' });
        assert.equal(match('api/{a}-{b}', '/api/-y'), undefined);
    });

    it('matches the empty template only at the root', () => {
        assert.deepEqual(match('', '/'), {});
        assert.equal(match('', '/x'), undefined);
        assert.equal(joinRoutePrefix('', 'hello'), 'hello');
        assert.equal(joinRoutePrefix('api', 'hello'), 'api/hello');
    });
});

describe('route templates: constraints', () => {
    const accepts = (constraint: string, value: string) => match(`x/{v:${constraint}}`, `/x/${encodeURIComponent(value)}`) !== undefined;

    it('int and long', () => {
        assert.ok(accepts('int', '42'));
        assert.ok(accepts('int', '-2147483648'));
        assert.ok(!accepts('int', '2147483648'));
        assert.ok(!accepts('int', '4.2'));
        assert.ok(!accepts('int', 'abc'));
        assert.ok(accepts('long', '2147483648'));
        assert.ok(accepts('long', '9223372036854775807'));
        assert.ok(!accepts('long', '9223372036854775808'));
    });

    it('bool, guid and alpha', () => {
        assert.ok(accepts('bool', 'True'));
        assert.ok(accepts('bool', 'false'));
        assert.ok(!accepts('bool', 'yes'));
        assert.ok(accepts('guid', '3f2504e0-4f89-11d3-9a0c-0305e82c3301'));
        assert.ok(accepts('guid', '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}'));
        assert.ok(accepts('guid', '3f2504e04f8911d39a0c0305e82c3301'));
        assert.ok(!accepts('guid', '3f2504e0-4f89-11d3-9a0c'));
        assert.ok(accepts('alpha', 'Hello'));
        assert.ok(!accepts('alpha', 'hello1'));
    });

    it('double, float, decimal and datetime', () => {
        assert.ok(accepts('double', '1.5e3'));
        assert.ok(accepts('double', '-0.25'));
        assert.ok(accepts('double', '1,000.5'));
        assert.ok(accepts('float', 'NaN'));
        assert.ok(!accepts('double', '1.2.3'));
        assert.ok(accepts('decimal', '12.50'));
        assert.ok(!accepts('decimal', '1e5'));
        assert.ok(accepts('datetime', '2024-02-29'));
        assert.ok(accepts('datetime', '2024-05-01T10:30:00Z'));
        // A slash cannot reach a segment (only as %2F, which stays encoded), so this form is checked directly.
        assert.ok(createRouteConstraint('datetime')('12/31/2023 11:59 PM'));
        assert.ok(!accepts('datetime', '2023-02-29'));
        assert.ok(!accepts('datetime', 'tomorrow'));
    });

    it('lengths and numeric bounds', () => {
        assert.ok(accepts('minlength(3)', 'abc'));
        assert.ok(!accepts('minlength(3)', 'ab'));
        assert.ok(accepts('maxlength(3)', 'abc'));
        assert.ok(!accepts('maxlength(3)', 'abcd'));
        assert.ok(accepts('length(2)', 'ab'));
        assert.ok(!accepts('length(2)', 'abc'));
        assert.ok(accepts('length(2,4)', 'abcd'));
        assert.ok(!accepts('length(2,4)', 'abcde'));
        assert.ok(accepts('min(10)', '10'));
        assert.ok(!accepts('min(10)', '9'));
        assert.ok(accepts('max(10)', '-3'));
        assert.ok(!accepts('max(10)', '11'));
        assert.ok(accepts('range(1,10)', '10'));
        assert.ok(!accepts('range(1,10)', '0'));
        assert.ok(!accepts('range(1,10)', 'x'));
    });

    it('regex, unanchored and case-insensitive like RegexRouteConstraint, with {{ }} escapes', () => {
        assert.ok(accepts('regex(^[a-z]{{2}}\\d$)', 'AB1'));
        assert.ok(!accepts('regex(^[a-z]{{2}}\\d$)', 'abc1'));
        assert.ok(accepts('regex(b)', 'abc'));
        assert.ok(accepts('regex(^(a|b)$)', 'b'));
    });

    it('chains constraints with ":" and applies them to defaults and optional values', () => {
        assert.ok(accepts('int:range(1,10)', '5'));
        assert.ok(!accepts('int:range(1,10)', '50'));
        assert.deepEqual(match('x/{n:int?}', '/x'), {});
        assert.equal(match('x/{n:int?}', '/x/a'), undefined);
        assert.deepEqual(match('x/{n:int=7}', '/x'), { n: '7' });
        assert.equal(match('x/{n:int=seven}', '/x'), undefined);
        assert.deepEqual(match('x/{n:INT}', '/x/3'), { n: '3' });
    });
});

describe('route templates: invalid templates', () => {
    const invalid = [
        'a//b',
        'a/{b',
        'a/b}',
        'a/{}',
        'a/{b}/{B}',
        'a/{*rest}/b',
        'a/x{*rest}',
        'a/{b}{c}',
        'a/{b?}-{c}',
        'a/{b}-{c?}',
        'a/{b?=x}',
        'a/{*b?}',
        'a/b?',
        'a/{b:nosuch}',
        'a/{b:length(x)}',
        'a/{b:regex([)}',
        '~a',
    ];
    for (const template of invalid) {
        it(`rejects ${template}`, () => {
            assert.throws(() => parseRouteTemplate(template), RouteTemplateError);
        });
    }

    it('accepts a leading "/" or "~/" and "{{" escapes in literals', () => {
        assert.deepEqual(match('/a/{b}', '/a/1'), { b: '1' });
        assert.deepEqual(match('~/a/{b}', '/a/1'), { b: '1' });
        assert.deepEqual(match('a/{{x}}', '/a/{x}'), {});
    });
});

describe('route templates: precedence', () => {
    const order = (...templates: string[]) =>
        templates
            .map((text) => parseRouteTemplate(text))
            .sort(comparePrecedence)
            .map((t) => t.text);

    it('puts literals before constrained parameters, before plain parameters, before catch-alls', () => {
        assert.deepEqual(order('api/{*rest}', 'api/{id}', 'api/{id:int}', 'api/items'), [
            'api/items',
            'api/{id:int}',
            'api/{id}',
            'api/{*rest}',
        ]);
        assert.deepEqual(order('api/{a}/x', 'api/x/{a}'), ['api/x/{a}', 'api/{a}/x']);
        assert.deepEqual(order('api/x/{a?}', 'api/x'), ['api/x', 'api/x/{a?}']);
    });
});
