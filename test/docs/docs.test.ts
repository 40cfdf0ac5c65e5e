/**
 * The documentation holds together: the README stays short enough to read first, and every relative link
 * in README.md, BENCHMARKS.md and docs/*.md points at a file of the repo and, into a markdown page, at one of
 * its headings.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { docFiles, readRepoFile, repoRoot } from '../infra/files';

/** What a newcomer reads first; the rest lives in docs/. */
const README_MAX_LINES = 250;

/** Markdown text without fenced code blocks and inline code spans, where a "[x](y)" is not a link. */
function prose(markdown: string): string {
    const kept: string[] = [];
    let fence: string | undefined;
    for (const line of markdown.split(/\r?\n/)) {
        const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
        if (fence === undefined && marker !== undefined) {
            fence = marker[0];
        } else if (fence !== undefined && marker?.[0] === fence) {
            fence = undefined;
        } else if (fence === undefined) {
            kept.push(line.replace(/`[^`]*`/g, ''));
        }
    }
    return kept.join('\n');
}

/** The targets of inline links ([text](target)), without a title. */
function linkTargets(markdown: string): string[] {
    const targets: string[] = [];
    for (const match of prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1] ?? '');
    return targets;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
    const anchors = new Set<string>();
    const seen = new Map<string, number>();
    let fence: string | undefined;
    for (const line of markdown.split(/\r?\n/)) {
        const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
        if (marker !== undefined && (fence === undefined || marker[0] === fence)) {
            fence = fence === undefined ? marker[0] : undefined;
            continue;
        }
        if (fence !== undefined) continue;
        const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
        if (heading === undefined) continue;
        const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
        const slug = text
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, '')
            .replace(/\s/g, '-');
        const count = seen.get(slug) ?? 0;
        seen.set(slug, count + 1);
        anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    return anchors;
}

/** What is wrong with one link of `file` (a repo path), or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not a file of the repo
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
    if (path.startsWith('..') || path.startsWith(sep)) return `${target} leaves the repository`;
    const absolute = join(repoRoot(), path);
    if (!existsSync(absolute)) return `${target}: ${path} does not exist`;
    if (anchor === undefined || anchor === '') return undefined;
    if (!statSync(absolute).isFile() || !path.endsWith('.md')) return undefined;
    const anchors = headingAnchors(readRepoFile(relative(repoRoot(), absolute)));
    return anchors.has(anchor) ? undefined : `${target}: ${path} has no heading #${anchor}`;
}

describe('README and docs/', () => {
    it(`keep the README under ${README_MAX_LINES} lines`, () => {
        const lines = readRepoFile('README.md').split(/\r?\n/).length;
        assert.ok(lines < README_MAX_LINES, `README.md has ${lines} lines; move detail to docs/ and link it`);
    });

    it('link only to files and headings that exist', () => {
        const files = docFiles();
        assert.ok(files.includes('docs/contract.md'), 'docs/contract.md (the tool contract) is missing');
        const broken = files.flatMap((file) =>
            linkTargets(readRepoFile(file)).flatMap((target) => {
                const problem = brokenLink(file, target);
                return problem === undefined ? [] : [`${file}: ${problem}`];
            })
        );
        assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
    });

    it('link the README to every page of docs/', () => {
        const linked = new Set(linkTargets(readRepoFile('README.md')).map((target) => target.split('#')[0]));
        const unlinked = docFiles()
            .filter((file) => file.startsWith('docs/'))
            .filter((file) => !linked.has(file));
        assert.deepEqual(unlinked, [], `README.md does not link ${unlinked.join(', ')}`);
    });

    it('find broken links and anchors (the checker itself)', () => {
        assert.deepEqual(linkTargets('See [a](docs/a.md#x) and `[b](not/a/link)`.\n```\n[c](code)\n```\n[d](https://e.example)'), [
            'docs/a.md#x',
            'https://e.example',
        ]);
        assert.deepEqual(
            [...headingAnchors('# Long results: `MAX_RESULT_CHARS`\n## MCP Tasks (protocol 2025-11-25, the SDK\'s API)\n## Costs\n## Costs')],
            ['long-results-max_result_chars', 'mcp-tasks-protocol-2025-11-25-the-sdks-api', 'costs', 'costs-1']
        );
        assert.match(brokenLink('README.md', 'docs/nothing.md') ?? '', /does not exist/);
        assert.match(brokenLink('README.md', 'docs/contract.md#no-such-heading') ?? '', /has no heading/);
        assert.equal(brokenLink('docs/contract.md', '../BENCHMARKS.md'), undefined);
        assert.match(brokenLink('README.md', '../outside.md') ?? '', /leaves the repository/);
    });
});
