// @ts-check
/**
 * `npm run publish:func -- <function app name>`: deploys with Azure Functions Core Tools what `azd deploy`
 * deploys. It stages the package (infra/hooks/stage-package.mjs: the compiled app, production dependencies
 * only, a host.json naming the Durable Task Scheduler) and runs `func azure functionapp publish` in that
 * folder, never in the repo root: there func would zip the checked-in host.json, which names Azure Storage
 * for local runs, and every dev dependency in node_modules (docs/deployment.md, "Other ways to deploy").
 *
 * `--no-build` because the package is already built: Core Tools would otherwise run the package's
 * `npm run build` (tsc, a dev tool the package does not hold) or ask Azure for a remote build. `--node`
 * names the worker runtime, which Core Tools reads from local.settings.json otherwise, a file the package
 * does not carry.
 *
 * Plain JavaScript on purpose: it runs straight from the checkout, before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPLOY_DIR, stage } from '../hooks/stage-package.mjs';

/**
 * The func command line for an app, and the folder to run it in.
 * @param {string} repoRoot
 * @param {string} appName
 * @returns {{ command: string, args: string[], cwd: string }}
 */
export function publishCommand(repoRoot, appName) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,58}$/.test(appName)) throw new Error(`${JSON.stringify(appName)} is not a function app name`);
    return { command: 'func', args: ['azure', 'functionapp', 'publish', appName, '--no-build', '--node'], cwd: join(repoRoot, DEPLOY_DIR) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const appName = process.argv[2] ?? process.env.AZURE_FUNCTION_APP_NAME ?? '';
    try {
        if (!appName) throw new Error('usage: npm run publish:func -- <function app name>   (azd env get-value AZURE_FUNCTION_APP_NAME)');
        const { command, args, cwd } = publishCommand(repoRoot, appName);
        stage(repoRoot, process.env);
        console.log(`> ${command} ${args.join(' ')}   (in ${cwd})`);
        const result = spawnSync(command, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
        if (result.error) throw new Error(`func could not be started (${result.error.message}): install Azure Functions Core Tools`);
        process.exitCode = result.status ?? 1;
    } catch (error) {
        console.error(error instanceof Error ? error.message : error);
        process.exitCode = 1;
    }
}
