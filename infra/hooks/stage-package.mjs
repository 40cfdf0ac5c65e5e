// @ts-check
/**
 * azd `prepackage` hook for the `api` service (see azure.yaml): builds the folder azd zips and deploys.
 *
 * Why a staging folder: the project's node_modules holds dev tools (TypeScript, Azurite and their many
 * dependencies) that must not be deployed, and pruning them in place would break the build step azd runs
 * right after this hook. So the compiled app is copied next to host.json and package.json in DEPLOY_DIR,
 * and production dependencies are installed there from the lock file.
 *
 * Plain JavaScript on purpose: it runs straight from the checkout, before anything is compiled.
 * Run it by hand with `node infra/hooks/stage-package.mjs` to inspect what would be deployed.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the package is staged, relative to the repo root. azure.yaml's `dist` must name the same folder. */
export const DEPLOY_DIR = 'dist/deploy';

/**
 * azd environment variable naming the Durable provider written into the deployed host.json. Unset, it is
 * the scheduler (`azureManaged`), which this deployment provisions: Flex Consumption's scale controller
 * reads the deployed host.json, not app-setting overrides, so the file itself must name the scheduler.
 * `azd env set HOST_JSON_DURABLE_PROVIDER azureStorage` deploys the checked-in file unchanged.
 */
export const PROVIDER_SWITCH = 'HOST_JSON_DURABLE_PROVIDER';

/** The provider block the scheduler needs; it matches the override app settings in infra/app/function-app.bicep. */
export const SCHEDULER_PROVIDER = Object.freeze({
    type: 'azureManaged',
    connectionStringName: 'DURABLE_TASK_SCHEDULER_CONNECTION_STRING',
});

/**
 * The host.json to deploy. Unset or `azureManaged` replaces extensions.durableTask.storageProvider with
 * SCHEDULER_PROVIDER (Azure Storage tuning such as maxQueuePollingInterval means nothing to the scheduler,
 * so it goes); `azureStorage` keeps the checked-in file as it is.
 * @param {Record<string, unknown>} hostJson parsed host.json
 * @param {string | undefined} provider value of PROVIDER_SWITCH
 * @returns {Record<string, unknown>}
 */
export function hostJsonForDeploy(hostJson, provider) {
    const copy = structuredClone(hostJson);
    const choice = (provider ?? '').trim() || SCHEDULER_PROVIDER.type;
    if (choice === 'azureStorage') return copy;
    if (choice !== SCHEDULER_PROVIDER.type) {
        throw new Error(`${PROVIDER_SWITCH} must be empty, "azureStorage" or "${SCHEDULER_PROVIDER.type}", not ${JSON.stringify(provider)}`);
    }
    const durableTask = objectAt(copy, ['extensions', 'durableTask']);
    durableTask['storageProvider'] = { ...SCHEDULER_PROVIDER };
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
 * Builds the app and stages the deployable folder under `repoRoot`.
 * @param {string} repoRoot
 * @param {NodeJS.ProcessEnv} env
 */
export function stage(repoRoot, env) {
    const out = join(repoRoot, DEPLOY_DIR);
    // Read the switch before anything slow, so a typo in it fails at once.
    const hostJson = hostJsonForDeploy(readJson(join(repoRoot, 'host.json')), env[PROVIDER_SWITCH]);

    // Always compile first: shipping a stale dist/ is the easiest way to deploy the wrong code.
    npm(repoRoot, ['run', 'build']);

    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });

    // The compiled app only; source maps are left out, as .funcignore does for other deploy paths.
    cpSync(join(repoRoot, 'dist', 'src'), join(out, 'dist', 'src'), {
        recursive: true,
        filter: (source) => extname(source) !== '.map',
    });
    writeFileSync(join(out, 'host.json'), `${JSON.stringify(hostJson, null, 2)}\n`);
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
    // npm records what it installed in node_modules/.package-lock.json; nothing there may be dev-only.
    const installed = join(out, 'node_modules', '.package-lock.json');
    if (existsSync(installed)) {
        const packages = readJson(installed).packages ?? {};
        for (const [path, info] of Object.entries(packages)) {
            if (info && info.dev === true) problems.push(`dev dependency ${path} was installed`);
        }
    }
    if (!existsSync(join(out, 'host.json'))) problems.push('host.json is missing');

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
