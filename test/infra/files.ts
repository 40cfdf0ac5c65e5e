/**
 * Small readers for the infra tests: the repo root, JSON with comments, a two-level YAML subset, the
 * deployment guide (docs/deployment.md) and the list of markdown docs. The templates themselves are read compiled (template.ts, arm.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json: tests run from dist/test/infra, so walk up from there. */
export function repoRoot(start: string = __dirname): string {
    let dir = start;
    while (!existsSync(join(dir, 'package.json'))) {
        const parent = dirname(dir);
        if (parent === dir) throw new Error(`No package.json above ${start}`);
        dir = parent;
    }
    return dir;
}

export function readRepoFile(relativePath: string): string {
    return readFileSync(join(repoRoot(), relativePath), 'utf8');
}

// ---------------------------------------------------------------------------------------------------
// JSON with comments (VS Code's .vscode files and local.settings.json may carry them)

/** Parses JSON that may contain // and /* *\/ comments and trailing commas, as VS Code allows. */
export function parseJsonc(text: string, file: string): unknown {
    let out = '';
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        const next = text[i + 1];
        if (inString) {
            out += c;
            if (c === '\\') out += text[++i] ?? '';
            else if (c === '"') inString = false;
        } else if (c === '"') {
            inString = true;
            out += c;
        } else if (c === '/' && next === '/') {
            while (i < text.length && text[i] !== '\n') i++;
            out += '\n';
        } else if (c === '/' && next === '*') {
            const end = text.indexOf('*/', i + 2);
            if (end < 0) throw new Error(`${file}: unterminated comment`);
            i = end + 1;
        } else {
            out += c;
        }
    }
    try {
        return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
    } catch (error) {
        throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
    }
}

export function readJson(relativePath: string): unknown {
    return parseJsonc(readRepoFile(relativePath), relativePath);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a path of keys, case-insensitively as the Functions host reads host.json and app settings. */
export function getPathInsensitive(root: unknown, path: readonly string[]): unknown {
    let node = root;
    for (const key of path) {
        if (!isRecord(node)) return undefined;
        const match = Object.keys(node).find((k) => k.toLowerCase() === key.toLowerCase());
        if (match === undefined) return undefined;
        node = node[match];
    }
    return node;
}

// ---------------------------------------------------------------------------------------------------
// YAML: only the subset azure.yaml uses (nested maps of scalars, comments)

export interface YamlMap {
    [key: string]: string | YamlMap;
}

/** Reads nested `key: value` maps by indentation. Lists and flow syntax are rejected, not misread. */
export function parseSimpleYaml(text: string, file: string): YamlMap {
    const root: YamlMap = {};
    const stack: { indent: number; map: YamlMap }[] = [{ indent: -1, map: root }];
    text.split(/\r?\n/).forEach((raw, index) => {
        const line = raw.replace(/\s+#.*$/, '');
        if (line.trim() === '' || line.trimStart().startsWith('#')) return;
        const match = /^( *)([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line);
        if (!match) throw new Error(`${file}:${index + 1}: unsupported YAML: ${raw.trim()}`);
        const [, spaces = '', key = '', value] = match;
        while ((stack[stack.length - 1]?.indent ?? -1) >= spaces.length) stack.pop();
        const parent = stack[stack.length - 1];
        if (!parent) throw new Error(`${file}:${index + 1}: bad indentation`);
        if (value === undefined || value === '') {
            const child: YamlMap = {};
            parent.map[key] = child;
            stack.push({ indent: spaces.length, map: child });
        } else {
            parent.map[key] = value.replace(/^(['"])(.*)\1$/, '$2');
        }
    });
    return root;
}

// ---------------------------------------------------------------------------------------------------
// The documentation: README.md and docs/*.md

/** The page that holds the whole "Deploy to Azure" guide (moved there from the README). */
export const DEPLOY_DOC = 'docs/deployment.md';
export const DEPLOY_HEADING = '# Deploy to Azure';

/** The deployment guide, docs/deployment.md, whole; it must open with its heading. */
export function deploySection(): string {
    const text = readRepoFile(DEPLOY_DOC);
    const first = text.split(/\r?\n/).find((line) => line.trim() !== '');
    if (first?.trim() !== DEPLOY_HEADING) throw new Error(`${DEPLOY_DOC} should open with "${DEPLOY_HEADING}"`);
    return text;
}

/** The repo's markdown documentation, as paths from the repo root: README.md, BENCHMARKS.md and docs/*.md. */
export function docFiles(): string[] {
    const docs = readdirSync(join(repoRoot(), 'docs'))
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `docs/${name}`);
    return ['README.md', 'BENCHMARKS.md', ...docs, 'test/README.md', 'devhost/README.md', 'testkit/README.md', 'src/mcp/sdk/README.md'];
}
