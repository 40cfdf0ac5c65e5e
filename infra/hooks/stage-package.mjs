// @ts-check
/**
 * azd `prepackage` hook for the `api` service (see azure.yaml): builds the folder azd zips and deploys.
 *
 * Why a staging folder: the project's node_modules holds dev tools (TypeScript, Azurite and their many
 * dependencies) that must not be deployed, and pruning them in place would break the build step azd runs
 * right after this hook. So the compiled app is copied next to host.json and package.json in DEPLOY_DIR,
 * and production dependencies are installed there from the lock file. The folder also gets a .funcignore
 * of its own (PACKAGE_FUNCIGNORE), without which azd before 1.23.12 drops node_modules from the zip.
 * .vscode/settings.json deploys the same folder from VS Code (azureFunctions.deploySubpath).
 *
 * Plain JavaScript on purpose: it runs straight from the checkout, before anything is compiled.
 * Run it by hand with `node infra/hooks/stage-package.mjs` to inspect what would be deployed.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the package is staged, relative to the repo root. azure.yaml's `dist` must name the same folder. */
export const DEPLOY_DIR = 'dist/deploy';

/**
 * An azd environment variable that once chose the Durable provider written into the deployed host.json.
 * It is refused now unless it names the scheduler: the app settings in infra/app/function-app.bicep
 * select the scheduler whatever the package says, and Flex Consumption's scale controller reads the
 * deployed host.json, not app-setting overrides, so a host.json naming Azure Storage would leave the
 * Durable functions unscaled on a backend the app does not use.
 */
export const PROVIDER_SWITCH = 'HOST_JSON_DURABLE_PROVIDER';

/** The provider block the scheduler needs; it matches the override app settings in infra/app/function-app.bicep. */
export const SCHEDULER_PROVIDER = Object.freeze({
    type: 'azureManaged',
    connectionStringName: 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING',
});

/**
 * Activity slots per instance (extensions.durableTask.maxConcurrentActivityFunctions), by Flex Consumption instance
 * memory: about 2 per core (512 MB has about 0.25 core, 2048 MB 1, 4096 MB 2), for CPU-bound ranges. They go into the
 * deployed host.json because that file is what the platform syncs to the scale controller as trigger metadata, and
 * the Durable Task Scheduler's target scaler divides the pending and active work items by this number; an app-setting
 * override reaches the running host only (infra/app/function-app.bicep sets the same value, so the two agree).
 * https://learn.microsoft.com/azure/azure-functions/durable/durable-task-scheduler/durable-task-scheduler-auto-scaling
 */
export const SLOTS_BY_MEMORY_MB = Object.freeze({ 512: 1, 2048: 2, 4096: 4 });
/** The azd environment value (and Bicep parameter, infra/main.bicep instanceMemoryMB) naming the instance size. */
export const INSTANCE_MEMORY_SETTING = 'INSTANCE_MEMORY_MB';
/** infra/main.bicep's default instance size, used when the azd environment sets none (a test holds the two to one). */
export const DEFAULT_INSTANCE_MEMORY_MB = 2048;

/**
 * The activity slots for the instance size the azd environment names.
 * @param {string | undefined} instanceMemoryMB the value of INSTANCE_MEMORY_SETTING: unset or empty for the default
 * @returns {number}
 */
export function slotsFor(instanceMemoryMB) {
    const text = (instanceMemoryMB ?? '').trim();
    const memory = text === '' ? DEFAULT_INSTANCE_MEMORY_MB : Number(text);
    const slots = /** @type {Record<string, number>} */ (SLOTS_BY_MEMORY_MB)[String(memory)];
    if (slots === undefined) {
        throw new Error(
            `${INSTANCE_MEMORY_SETTING} is ${JSON.stringify(instanceMemoryMB)}; Flex Consumption instances have ` +
                `${Object.keys(SLOTS_BY_MEMORY_MB).join(', ')} MB: azd env set ${INSTANCE_MEMORY_SETTING} 2048`
        );
    }
    return slots;
}

/**
 * The .funcignore written into the package. Its presence is what matters: azd 1.18 to 1.23.11 leaves
 * node_modules out of a ts/js package that has no .funcignore, and with `remoteBuild: false` nothing
 * installs them in Azure, so the app would fail at start. It excludes nothing: the folder holds only
 * what is to be deployed.
 */
export const PACKAGE_FUNCIGNORE = [
    '# Written by infra/hooks/stage-package.mjs. This folder holds exactly what is deployed, so nothing is',
    '# excluded; the file exists so that every azd version (and VS Code) keeps node_modules in the package.',
    '',
].join('\n');

/**
 * The host.json to deploy: extensions.durableTask.storageProvider is replaced with SCHEDULER_PROVIDER (Azure
 * Storage tuning such as maxQueuePollingInterval means nothing to the scheduler, so it goes), and the activity
 * slots are those of the instance size (slotsFor).
 * @param {Record<string, unknown>} hostJson parsed host.json
 * @param {string | undefined} provider value of PROVIDER_SWITCH: unset, empty or the scheduler's type
 * @param {string | undefined} [instanceMemoryMB] value of INSTANCE_MEMORY_SETTING
 * @returns {Record<string, unknown>}
 */
export function hostJsonForDeploy(hostJson, provider, instanceMemoryMB) {
    const choice = (provider ?? '').trim();
    if (choice !== '' && choice !== SCHEDULER_PROVIDER.type) {
        throw new Error(
            `${PROVIDER_SWITCH} is ${JSON.stringify(provider)}, but this deployment runs the Durable functions on the ` +
                `Durable Task Scheduler: its app settings (infra/app/function-app.bicep) select it, and the deployed host.json ` +
                `must agree or Flex Consumption will not scale them. Unset it: azd env set ${PROVIDER_SWITCH} ""`
        );
    }
    const copy = structuredClone(hostJson);
    const durableTask = objectAt(copy, ['extensions', 'durableTask']);
    durableTask['storageProvider'] = { ...SCHEDULER_PROVIDER };
    durableTask['maxConcurrentActivityFunctions'] = slotsFor(instanceMemoryMB);
    return copy;
}

/**
 * @param {Record<string, unknown>} root
 * @param {string[]} path
 * @returns {Record<string, unknown>}
 */
function objectAt(root, path) {
    let node = root;
    for (const key of path) {
        const next = node[key];
        if (typeof next !== 'object' || next === null || Array.isArray(next)) {
            throw new Error(`host.json has no object at ${path.join('.')}`);
        }
        node = /** @type {Record<string, unknown>} */ (next);
    }
    return node;
}

/**
 * @param {string} cwd
 * @param {string[]} args
 */
function npm(cwd, args) {
    console.log(`> npm ${args.join(' ')}   (in ${cwd})`);
    // npm is npm.cmd on Windows, which only a shell can start.
    const result = spawnSync('npm', args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
    if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed with exit code ${String(result.status)}`);
}

/**
 * @param {string} file
 * @returns {any}
 */
function readJson(file) {
    return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Builds the app and stages the deployable folder.
 * @param {string} repoRoot
 * @param {NodeJS.ProcessEnv} env
 * @param {{ outDir?: string, build?: boolean }} [options] where to stage (default DEPLOY_DIR under repoRoot),
 *   and whether to compile first (default true; the tests stage what `npm test` has just compiled)
 */
export function stage(repoRoot, env, options = {}) {
    const out = options.outDir ?? join(repoRoot, DEPLOY_DIR);
    // Read the switch before anything slow, so a wrong value fails at once.
    const hostJson = hostJsonForDeploy(readJson(join(repoRoot, 'host.json')), env[PROVIDER_SWITCH], env[INSTANCE_MEMORY_SETTING]);

    // Compile first: shipping a stale dist/ is the easiest way to deploy the wrong code.
    if (options.build ?? true) npm(repoRoot, ['run', 'build']);

    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });

    // The compiled app only; source maps are left out, as .funcignore does for other deploy paths.
    cpSync(join(repoRoot, 'dist', 'src'), join(out, 'dist', 'src'), {
        recursive: true,
        filter: (source) => extname(source) !== '.map',
    });
    writeFileSync(join(out, 'host.json'), `${JSON.stringify(hostJson, null, 2)}\n`);
    writeFileSync(join(out, '.funcignore'), PACKAGE_FUNCIGNORE);
    cpSync(join(repoRoot, 'package.json'), join(out, 'package.json'));
    cpSync(join(repoRoot, 'package-lock.json'), join(out, 'package-lock.json'));

    // Production dependencies exactly as locked. --ignore-scripts: the project's own lifecycle scripts
    // (a future `prepare` that calls tsc, say) would fail here, where no dev tools are installed.
    npm(out, ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline']);

    verify(out);
    console.log(`Staged the deployment package in ${out}`);
}

/**
 * Fails the deployment early if the package could not start in Azure or carries dev dependencies.
 * @param {string} out
 */
function verify(out) {
    const pkg = readJson(join(out, 'package.json'));
    const problems = [];

    // package.json `main` is how the Node.js v4 model finds the functions, e.g. dist/src/functions/*.js.
    const main = String(pkg.main ?? '');
    const folder = join(out, dirname(main));
    const pattern = new RegExp(`^${basenamePattern(main)}$`);
    const entries = existsSync(folder) ? readdirSync(folder).filter((f) => pattern.test(f)) : [];
    if (entries.length === 0) problems.push(`package.json main "${main}" matches no file in the package`);

    for (const name of Object.keys(pkg.dependencies ?? {})) {
        if (!existsSync(join(out, 'node_modules', name, 'package.json'))) problems.push(`dependency ${name} is missing`);
    }
    // npm records what it installed in node_modules/.package-lock.json; nothing there may be dev-only. The repository's
    // workspaces (devhost/, testkit/) are named there too, as dev, but are not in the package: only what exists counts.
    const installed = join(out, 'node_modules', '.package-lock.json');
    if (existsSync(installed)) {
        const packages = readJson(installed).packages ?? {};
        for (const [path, info] of Object.entries(packages)) {
            if (info && info.dev === true && existsSync(join(out, path))) problems.push(`dev dependency ${path} was installed`);
        }
    }
    for (const workspace of pkg.workspaces ?? []) {
        if (existsSync(join(out, workspace)) || existsSync(join(out, 'node_modules', '@mcp-mining', basename(workspace)))) {
            problems.push(`the workspace ${workspace} (a dev tool) is in the package`);
        }
    }
    if (!existsSync(join(out, 'host.json'))) problems.push('host.json is missing');
    else if (JSON.stringify(readJson(join(out, 'host.json'))?.extensions?.durableTask?.storageProvider) !== JSON.stringify(SCHEDULER_PROVIDER)) {
        problems.push('host.json does not name the Durable Task Scheduler, which the app settings select');
    } else if (!Object.values(SLOTS_BY_MEMORY_MB).includes(readJson(join(out, 'host.json'))?.extensions?.durableTask?.maxConcurrentActivityFunctions)) {
        problems.push('host.json has no activity slot count of an instance size');
    }
    if (!existsSync(join(out, '.funcignore'))) problems.push('.funcignore is missing (azd before 1.23.12 would then leave node_modules out)');
    // The jobs' views (MCP Apps) are built HTML, made by scripts/build-views.mjs after tsc; the app reads them from here.
    const views = join(out, 'dist', 'src', 'views');
    if (!existsSync(views) || !readdirSync(views).some((f) => f.endsWith('.html'))) problems.push('dist/src/views holds no view: run npm run build, which builds them');

    if (problems.length > 0) throw new Error(`The staged package is not deployable:\n  - ${problems.join('\n  - ')}`);
}

/**
 * Turns the file part of a simple glob such as `*.js` into a regular expression source.
 * @param {string} glob
 */
function basenamePattern(glob) {
    const base = glob.split('/').pop() ?? '';
    return base.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
}

// Run as a script (the azd hook), not when a test imports the helpers above.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    try {
        stage(repoRoot, process.env);
    } catch (error) {
        console.error(error instanceof Error ? error.message : error);
        process.exit(1);
    }
}
