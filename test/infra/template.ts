/**
 * infra/main.bicep compiled by the real Bicep compiler (the version pinned in
 * infra/tools/bicep/bicep-cli.csproj, restored by infra/tools/bicep.mjs on first use), and the linter's
 * findings. The compiled template is cached in the system's temp folder under a hash of the sources, so
 * the test files share one build.
 *
 * Without the .NET SDK the compiler cannot be restored: `bicepSkip` then says why and the tests that need
 * it are skipped, except in CI (CI=true), where `bicepSkip` is undefined and those tests fail instead.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { deploy, deployed, isObject, type Deployment, type Resource, type Template, type Value, type ValueObject } from '@mcp-mining/testkit/arm';
import { repoRoot } from './files';

export const MAIN_BICEP = 'infra/main.bicep';
const TOOL = 'infra/tools/bicep.mjs';
/** infra/tools/bicep.mjs exits with this when `dotnet` is missing (its NO_DOTNET_EXIT_CODE). */
const NO_DOTNET_EXIT_CODE = 3;

/** The compiler's path; or why there is none: .NET missing (a skip outside CI), or a failed restore (a failure). */
type Located = { binary: string } | { unavailable: string } | { failed: string };

function locate(): Located {
    const result = spawnSync(process.execPath, [join(repoRoot(), TOOL), '--locate'], { encoding: 'utf8', cwd: repoRoot() });
    if (result.status === 0) return { binary: result.stdout.trim() };
    const message = `${result.stderr}${result.stdout}`.trim() || result.error?.message || `exit ${String(result.status)}`;
    if (result.status === NO_DOTNET_EXIT_CODE) return { unavailable: message.split(/\r?\n/).pop() ?? message };
    return { failed: `node ${TOOL} --locate failed:\n${message}` };
}

const located = locate();
const inCi = process.env['CI'] === 'true';

/**
 * Why the compiler tests are skipped here, or undefined when they run. In CI they always run, so a
 * machine without .NET fails them rather than passing without having compiled anything.
 */
export const bicepSkip: string | undefined =
    'unavailable' in located && !inCi ? `${located.unavailable}; install the .NET SDK to compile and lint the Bicep (required in CI)` : undefined;

/** The compiler binary; throws (failing the test) where it could not be restored. */
export function bicepBinary(): string {
    if ('unavailable' in located) throw new Error(`The Bicep compiler is required in CI: ${located.unavailable}`);
    if ('failed' in located) throw new Error(located.failed);
    return located.binary;
}

/** One SARIF result: a diagnostic of the compiler or the linter. */
export interface Diagnostic {
    rule: string;
    /** SARIF level: error, warning, note or none (a result without a level is a warning). */
    level: string;
    message: string;
    /** file:line, relative to the repo. */
    where: string;
}

interface Sarif {
    runs?: {
        results?: {
            ruleId?: string;
            level?: string;
            message?: { text?: string };
            locations?: { physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number } } }[];
        }[];
    }[];
}

function parseSarif(text: string, command: string): Diagnostic[] {
    let sarif: Sarif;
    try {
        sarif = JSON.parse(text) as Sarif;
    } catch {
        throw new Error(`${command} did not print SARIF:\n${text}`);
    }
    const root = repoRoot().replace(/\\/g, '/');
    return (sarif.runs ?? []).flatMap((run) =>
        (run.results ?? []).map((result) => {
            const location = result.locations?.[0]?.physicalLocation;
            const file = decodeURIComponent(location?.artifactLocation?.uri ?? '').replace(/^file:\/\//, '').replace(`${root}/`, '');
            return {
                rule: result.ruleId ?? '?',
                level: result.level ?? 'warning',
                message: result.message?.text ?? '',
                where: `${file}:${String(location?.region?.startLine ?? '?')}`,
            };
        })
    );
}

/** Diagnostics that fail the build: everything but notes (such as "Custom bicepconfig.json file found"). */
export function problems(diagnostics: readonly Diagnostic[]): string[] {
    return diagnostics.filter((d) => d.level !== 'note' && d.level !== 'none').map((d) => `${d.where}: ${d.level} ${d.rule}: ${d.message}`);
}

function runBicep(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(bicepBinary(), args, { encoding: 'utf8', cwd: repoRoot(), maxBuffer: 64 * 1024 * 1024 });
    if (result.error) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `bicep lint infra/main.bicep` (the modules are linted through it), with infra/bicepconfig.json. */
export function lint(): { status: number | null; diagnostics: Diagnostic[] } {
    const result = runBicep(['lint', MAIN_BICEP, '--diagnostics-format', 'sarif']);
    return { status: result.status, diagnostics: parseSarif(result.stdout, 'bicep lint') };
}

export interface Build {
    status: number | null;
    diagnostics: Diagnostic[];
    /** The ARM template, when the build succeeded. */
    template?: Template;
}

/** Everything that shapes the compiled template: the compiler's path (it names the version) and the sources. */
function sourcesHash(binary: string): string {
    const hash = createHash('sha256').update(binary);
    const walk = (dir: string): void => {
        for (const item of readdirSync(join(repoRoot(), dir), { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
            const path = `${dir}/${item.name}`;
            if (item.isDirectory() && item.name !== 'tools') walk(path);
            else if (item.isFile() && /\.(bicep|json)$/.test(item.name)) hash.update(path).update(readFileSync(join(repoRoot(), path)));
        }
    };
    walk('infra');
    return hash.digest('hex').slice(0, 24);
}

let build: Build | undefined;

/** `bicep build infra/main.bicep`, into the temp folder (cached there by content; never into the repo). */
export function compile(): Build {
    if (build) return build;
    const binary = bicepBinary();
    const dir = join(tmpdir(), 'mcp-durable-mining-bicep', sourcesHash(binary));
    const cached = join(dir, 'build.json');
    if (existsSync(cached)) {
        build = JSON.parse(readFileSync(cached, 'utf8')) as Build;
        return build;
    }
    mkdirSync(dir, { recursive: true });
    const out = join(dir, `main.${process.pid}.json`);
    const result = runBicep(['build', MAIN_BICEP, '--outfile', out, '--diagnostics-format', 'sarif']);
    // Build prints its SARIF on stderr (stdout would hold the template with --stdout).
    const diagnostics = parseSarif(result.stderr.trim() || '{}', 'bicep build');
    build = { status: result.status, diagnostics, ...(result.status === 0 ? { template: JSON.parse(readFileSync(out, 'utf8')) as Template } : {}) };
    rmSync(out, { force: true });
    if (result.status === 0) {
        // Written under a name of its own, then renamed: test files running at once never read half a file.
        const partial = join(dir, `build.${process.pid}.json`);
        writeFileSync(partial, JSON.stringify(build));
        renameSync(partial, cached);
    }
    return build;
}

/** The compiled template; throws (failing the test) if the build failed. */
export function template(): Template {
    const result = compile();
    if (!result.template) throw new Error(`bicep build ${MAIN_BICEP} failed:\n${problems(result.diagnostics).join('\n')}`);
    return result.template;
}

/** The app registration's client id in TEST_PARAMETERS: what the preprovision hook stores as AUTH_CLIENT_ID. */
export const TEST_AUTH_CLIENT_ID = '11111111-2222-3333-4444-555555555555';

/** Root parameter values the tests deploy with: what azd would pass for a new environment. */
export const TEST_PARAMETERS: Readonly<Record<string, Value>> = Object.freeze({
    environmentName: 'test-env',
    location: 'eastus2',
    authClientId: TEST_AUTH_CLIENT_ID,
});

/** The compiled template evaluated with TEST_PARAMETERS plus `overrides` (defaults for the rest). */
export function deployment(overrides: Record<string, Value> = {}): Deployment {
    return deploy(template(), { ...TEST_PARAMETERS, ...overrides });
}

/** The one resource in `resources`; fails the test otherwise. */
export function only(resources: Resource[], what: string): Resource {
    assert.equal(resources.length, 1, `the compiled template should create exactly one ${what}, found ${resources.length}`);
    return resources[0] as Resource;
}

/** The properties of the function app's Microsoft.Web/sites/config `appsettings` resource. */
export function appSettingsOf(overrides: Record<string, Value> = {}): ValueObject {
    const configs = deployed(deployment(overrides), 'Microsoft.Web/sites/config').filter((r) => String(r.name).endsWith('/appsettings'));
    const properties = only(configs, 'Microsoft.Web/sites/config appsettings').body['properties'];
    assert.ok(isObject(properties), 'the appsettings resource has no properties object');
    return properties;
}
