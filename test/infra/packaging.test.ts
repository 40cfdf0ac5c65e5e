/**
 * azure.yaml, the prepackage hook and .funcignore agree, so `azd up` deploys the compiled app with
 * production dependencies only, to the function app the template tags for it, with a host.json that
 * names the backend the app settings select; and the package the hook stages is inspected.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { JOB_NAMES } from '../../src/jobs';
import { at, deployed } from '@mcp-mining/testkit/arm';
import { deploySection, getPathInsensitive, isRecord, parseSimpleYaml, readJson, readRepoFile, repoRoot, type YamlMap } from './files';
import { appSettingsOf, bicepSkip, deployment, only, template } from './template';

/** What the hook module (infra/hooks/stage-package.mjs) exports; it is plain JS, so this is its shape. */
interface StageModule {
    DEPLOY_DIR: string;
    PROVIDER_SWITCH: string;
    PACKAGE_FUNCIGNORE: string;
    SCHEDULER_PROVIDER: { type: string; connectionStringName: string };
    SLOTS_BY_MEMORY_MB: Readonly<Record<string, number>>;
    INSTANCE_MEMORY_SETTING: string;
    DEFAULT_INSTANCE_MEMORY_MB: number;
    slotsFor(instanceMemoryMB: string | undefined): number;
    hostJsonForDeploy(hostJson: unknown, provider: string | undefined, instanceMemoryMB?: string): unknown;
    stage(repoRoot: string, env: NodeJS.ProcessEnv, options?: { outDir?: string; build?: boolean }): void;
}

const HOOK = 'infra/hooks/stage-package.mjs';
/** The azd release that keeps node_modules in a ts/js package without a .funcignore (see azure.yaml). */
const AZD_MINIMUM = '1.23.12';

async function loadHook(): Promise<StageModule> {
    // A computed specifier keeps tsc from resolving the .mjs; Node loads it as an ES module.
    const url = pathToFileURL(join(repoRoot(), HOOK)).href;
    return (await import(url)) as StageModule;
}

const azureYaml = parseSimpleYaml(readRepoFile('azure.yaml'), 'azure.yaml');
const services = azureYaml['services'];

function service(): [string, YamlMap] {
    assert.ok(typeof services === 'object', 'azure.yaml has no services');
    const names = Object.keys(services);
    assert.equal(names.length, 1, `azure.yaml should define one service, found ${names.join(', ')}`);
    const [name = ''] = names;
    const config = services[name];
    assert.ok(typeof config === 'object', `azure.yaml service ${name} has no settings`);
    return [name, config];
}

/** A JSON file of a staged package (outside the repo). */
const stagedJson = (dir: string, file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;

function versionAtLeast(version: string, minimum: string): boolean {
    const a = version.split('.').map(Number);
    const b = minimum.split('.').map(Number);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
    }
    return true;
}

describe('azure.yaml', () => {
    it(`requires azd ${AZD_MINIMUM} or later, which keeps node_modules in the package`, () => {
        const required = getPathInsensitive(azureYaml, ['requiredVersions', 'azd']);
        assert.equal(typeof required, 'string', 'azure.yaml needs requiredVersions.azd');
        const lower = /^>=\s*(\d+\.\d+\.\d+)$/.exec(String(required))?.[1];
        assert.ok(lower, `azure.yaml requiredVersions.azd is "${String(required)}"; expected a lower bound such as ">= ${AZD_MINIMUM}"`);
        assert.ok(versionAtLeast(lower, AZD_MINIMUM), `azure.yaml allows azd ${lower}, but azd before ${AZD_MINIMUM} can deploy without node_modules`);
    });

    it('builds locally and deploys the folder the prepackage hook stages', async () => {
        const [name, config] = service();
        const hook = await loadHook();
        assert.equal(config['host'], 'function', `azure.yaml service ${name}: host must be function`);
        assert.equal(config['language'], 'ts', `azure.yaml service ${name}: language must be ts`);
        assert.equal(config['remoteBuild'], 'false', `azure.yaml service ${name}: remoteBuild must be false (the package is built and checked locally)`);
        assert.equal(config['dist'], hook.DEPLOY_DIR, `azure.yaml service ${name}: dist must be ${hook.DEPLOY_DIR}, where ${HOOK} stages the package`);
        const hooks = config['hooks'];
        const prepackage = typeof hooks === 'object' ? hooks['prepackage'] : undefined;
        assert.ok(typeof prepackage === 'object', `azure.yaml service ${name} has no prepackage hook`);
        for (const platform of ['posix', 'windows']) {
            const run = getPathInsensitive(prepackage, [platform, 'run']);
            assert.equal(run, `node ${HOOK}`, `azure.yaml prepackage.${platform}.run must be "node ${HOOK}"`);
        }
        assert.ok(existsSync(join(repoRoot(), HOOK)), `${HOOK} is missing`);
    });

    it('deploys service `api` to the function app tagged with that name', { skip: bicepSkip }, () => {
        const [name] = service();
        const site = only(deployed(deployment(), 'Microsoft.Web/sites'), 'function app');
        assert.equal(at(site.body, ['tags', 'azd-service-name']), name, `the function app's azd-service-name tag must equal the azure.yaml service name "${name}"`);
    });
});

describe('.funcignore', () => {
    const lines = readRepoFile('.funcignore')
        .split(/\r?\n/)
        .map((l) => l.trim());

    it('keeps node_modules, which azd refuses to combine with remoteBuild: false otherwise', () => {
        const excluded = lines.filter((l) => /^\/?node_modules\/?$/.test(l));
        assert.deepEqual(excluded, [], '.funcignore excludes node_modules entirely; azd then rejects remoteBuild: false');
    });

    it('leaves the staged azd package out of other deploy paths', async () => {
        const { DEPLOY_DIR } = await loadHook();
        assert.ok(lines.includes(`${DEPLOY_DIR}/`), `.funcignore should list ${DEPLOY_DIR}/ so func deploys from the repo root do not ship a second copy`);
    });
});

describe('deployed host.json', () => {
    it('names the scheduler, whatever the checked-in host.json says', async () => {
        const hook = await loadHook();
        const hostJson = readJson('host.json');
        for (const unset of [undefined, '', hook.SCHEDULER_PROVIDER.type]) {
            const deployedHost = hook.hostJsonForDeploy(hostJson, unset);
            assert.deepEqual(
                getPathInsensitive(deployedHost, ['extensions', 'durableTask', 'storageProvider']),
                { ...hook.SCHEDULER_PROVIDER },
                `${HOOK} must deploy the scheduler provider when ${hook.PROVIDER_SWITCH} is ${JSON.stringify(unset)}`
            );
            assert.equal(getPathInsensitive(deployedHost, ['extensions', 'durableTask', 'hubName']), '%TASKHUB_NAME%', `${HOOK} must keep hubName when it switches the provider`);
        }
    });

    it('cannot disagree with the app settings: any other provider is refused', async () => {
        const hook = await loadHook();
        for (const other of ['azureStorage', 'AzureStorage', 'dts', 'mssql']) {
            assert.throws(() => hook.hostJsonForDeploy(readJson('host.json'), other), new RegExp(hook.PROVIDER_SWITCH), `${HOOK} accepted ${hook.PROVIDER_SWITCH}=${other}`);
        }
    });

    it('names the scheduler exactly as the override app settings do', { skip: bicepSkip }, async () => {
        const hook = await loadHook();
        const settings = appSettingsOf();
        const prefix = 'AzureFunctionsJobHost__extensions__durableTask__storageProvider__';
        assert.equal(settings[`${prefix}type`], hook.SCHEDULER_PROVIDER.type, `${HOOK} and infra/app/function-app.bicep disagree on the provider type`);
        assert.equal(settings[`${prefix}connectionStringName`], hook.SCHEDULER_PROVIDER.connectionStringName, `${HOOK} and infra/app/function-app.bicep disagree on connectionStringName`);
    });

    it('carries the activity slots of the instance size the azd environment names, which the scale controller reads', async () => {
        const hook = await loadHook();
        const slotsOf = (memory: string | undefined) =>
            getPathInsensitive(hook.hostJsonForDeploy(readJson('host.json'), undefined, memory), ['extensions', 'durableTask', 'maxConcurrentActivityFunctions']);
        assert.deepEqual([slotsOf('512'), slotsOf('2048'), slotsOf('4096'), slotsOf(undefined), slotsOf('')], [1, 2, 4, 2, 2]);
        for (const wrong of ['1024', 'big', '-1']) assert.throws(() => slotsOf(wrong), new RegExp(hook.INSTANCE_MEMORY_SETTING), `${HOOK} accepted ${hook.INSTANCE_MEMORY_SETTING}=${wrong}`);
    });

    it('agrees with the template on the slots of every instance size, and on the default size', { skip: bicepSkip }, async () => {
        const hook = await loadHook();
        const setting = 'AzureFunctionsJobHost__extensions__durableTask__maxConcurrentActivityFunctions';
        for (const memory of Object.keys(hook.SLOTS_BY_MEMORY_MB)) {
            const bicep = appSettingsOf({ instanceMemoryMB: Number(memory) })[setting];
            assert.equal(bicep, String(hook.slotsFor(memory)), `${memory} MB: infra/app/function-app.bicep gives ${String(bicep)} slots, ${HOOK} ${hook.slotsFor(memory)}`);
        }
        const declared = template().parameters?.['instanceMemoryMB']?.['defaultValue'];
        assert.equal(declared, hook.DEFAULT_INSTANCE_MEMORY_MB, `infra/main.bicep instanceMemoryMB defaults to ${String(declared)}, ${HOOK} to ${hook.DEFAULT_INSTANCE_MEMORY_MB}`);
    });

    it('has its switch explained in the deployment guide', async () => {
        const { PROVIDER_SWITCH } = await loadHook();
        assert.ok(deploySection().includes(PROVIDER_SWITCH), `docs/deployment.md should explain ${PROVIDER_SWITCH}`);
    });
});

describe('the staged package', () => {
    let out = '';
    let hook: StageModule;

    before(async () => {
        hook = await loadHook();
        out = mkdtempSync(join(tmpdir(), 'staged-package-'));
        // npm test has just compiled dist/src; staging again here would rewrite dist while other tests run.
        hook.stage(repoRoot(), {}, { outDir: out, build: false });
    });

    after(() => {
        if (out) rmSync(out, { recursive: true, force: true });
    });

    const pkg = (): Record<string, unknown> => JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as Record<string, unknown>;
    const names = (key: string): string[] => Object.keys(isRecord(pkg()[key]) ? (pkg()[key] as object) : {});

    it('holds node_modules with every production dependency, and no dev tool', () => {
        for (const name of names('dependencies')) {
            assert.ok(existsSync(join(out, 'node_modules', name, 'package.json')), `the staged package lacks the dependency ${name}`);
        }
        for (const name of names('devDependencies')) {
            assert.ok(!existsSync(join(out, 'node_modules', name)), `the staged package holds the dev dependency ${name}`);
        }
        assert.ok(!existsSync(join(out, 'node_modules', '.bin', 'tsc')), 'the staged package holds tsc');
    });

    it('carries a .funcignore that excludes nothing, so every azd version keeps node_modules', () => {
        const file = join(out, '.funcignore');
        assert.ok(existsSync(file), 'the staged package has no .funcignore: azd before 1.23.12 would leave node_modules out');
        const patterns = readFileSync(file, 'utf8')
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter((l) => l !== '' && !l.startsWith('#'));
        assert.deepEqual(patterns, [], 'the staged .funcignore should exclude nothing: the folder holds only what is deployed');
    });

    it('has the default instance size\'s activity slots in its host.json, and a package staged for 512 MB has 1', () => {
        assert.equal(getPathInsensitive(stagedJson(out, 'host.json'), ['extensions', 'durableTask', 'maxConcurrentActivityFunctions']), 2);
        const small = mkdtempSync(join(tmpdir(), 'staged-package-512-'));
        try {
            hook.stage(repoRoot(), { [hook.INSTANCE_MEMORY_SETTING]: '512' }, { outDir: small, build: false });
            assert.equal(getPathInsensitive(stagedJson(small, 'host.json'), ['extensions', 'durableTask', 'maxConcurrentActivityFunctions']), 1);
        } finally {
            rmSync(small, { recursive: true, force: true });
        }
    });

    it('names the scheduler in its host.json', () => {
        const hostJson = JSON.parse(readFileSync(join(out, 'host.json'), 'utf8')) as unknown;
        assert.deepEqual(getPathInsensitive(hostJson, ['extensions', 'durableTask', 'storageProvider']), { ...hook.SCHEDULER_PROVIDER });
    });

    it('holds the compiled functions package.json points at, and no sources, tests or local settings', () => {
        const top = readdirSync(out).sort();
        assert.deepEqual(top, ['.funcignore', 'dist', 'host.json', 'node_modules', 'package-lock.json', 'package.json'], `unexpected top-level entries in the staged package: ${top.join(', ')}`);
        assert.deepEqual(readdirSync(join(out, 'dist')), ['src'], 'the staged dist/ should hold the app (dist/src) only');
        const functions = readdirSync(join(out, 'dist', 'src', 'functions'));
        assert.ok(functions.some((f) => f.endsWith('.js')), 'the staged package has no compiled functions');
        assert.ok(!functions.some((f) => f.endsWith('.map')), 'the staged package holds source maps');
    });

    it("holds each job's view, the HTML the build makes (scripts/build-views.mjs) and the app serves", () => {
        const views = readdirSync(join(out, 'dist', 'src', 'views')).filter((f) => f.endsWith('.html')).sort();
        assert.deepEqual(views, JOB_NAMES.map((name) => `${name}.html`).sort());
        const html = readFileSync(join(out, 'dist', 'src', 'views', 'mining.html'), 'utf8');
        assert.match(html, /^<!DOCTYPE html>/);
        assert.doesNotMatch(html, /<script[^>]+src=/, 'the view is one document: its script is inline');
    });
});

describe('publishing with Core Tools (npm run publish:func)', () => {
    interface PublishModule {
        publishCommand(repoRoot: string, appName: string): { command: string; args: string[]; cwd: string };
    }
    const TOOL = 'infra/tools/func-publish.mjs';
    const loadTool = async (): Promise<PublishModule> => (await import(pathToFileURL(join(repoRoot(), TOOL)).href)) as PublishModule;

    it('is the npm script publish:func', () => {
        const scripts = (JSON.parse(readRepoFile('package.json')) as { scripts?: Record<string, string> }).scripts ?? {};
        assert.equal(scripts['publish:func'], `node ${TOOL}`);
    });

    it('publishes the staged package, already built, never the repo root with its Azure Storage host.json', async () => {
        const { DEPLOY_DIR } = await loadHook();
        const { publishCommand } = await loadTool();
        const { command, args, cwd } = publishCommand(repoRoot(), 'func-api-abc123');
        assert.equal(command, 'func');
        assert.deepEqual(args.slice(0, 4), ['azure', 'functionapp', 'publish', 'func-api-abc123']);
        assert.equal(cwd, join(repoRoot(), DEPLOY_DIR), `func must run in ${DEPLOY_DIR}, whose host.json names the scheduler`);
        assert.ok(args.includes('--no-build'), 'without --no-build Core Tools runs the package\'s npm run build (tsc is not in it) or a remote build');
        assert.throws(() => publishCommand(repoRoot(), 'a b; rm -rf /'), /not a function app name/);
    });

    it('is the documented alternative to azd deploy, with the reason the repo root is not published', () => {
        const guide = deploySection();
        assert.ok(guide.includes('npm run publish:func'), 'docs/deployment.md should show npm run publish:func');
        assert.match(guide, /func azure functionapp publish/);
    });

    it('leaves the compiled smoke check out of a repo-root package', () => {
        const lines = readRepoFile('.funcignore').split(/\r?\n/).map((l) => l.trim());
        assert.ok(lines.includes('dist/scripts/'), '.funcignore should list dist/scripts/ (the smoke check is not part of the app)');
    });
});
