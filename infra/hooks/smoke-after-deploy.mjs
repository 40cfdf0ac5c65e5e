// @ts-check
/**
 * azd `postdeploy` hook (see azure.yaml): runs the smoke check (`npm run smoke`, scripts/smoke/) against the
 * app just deployed, with the function key read through the Azure CLI and, when App Service Authentication
 * is on, an Entra token for the app's scope from `az account get-access-token` (the registration
 * pre-authorizes the Azure CLI for it, infra/hooks/entra-app.mjs). Key and token reach the check through
 * environment variables, not its command line.
 *
 * SMOKE_AFTER_DEPLOY=false skips it. azure.yaml marks the hook continueOnError: a failed check is printed
 * and azd reports it, but the deployment stays; rerun it by hand with the commands in docs/deployment.md.
 *
 * Plain JavaScript on purpose: it runs straight from the checkout.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SWITCH = 'SMOKE_AFTER_DEPLOY';
/** A new deployment's first answer can take a cold start and the host's trigger sync. */
export const WAIT_READY_SECONDS = 300;

/**
 * What the hook needs from the azd environment (the outputs of infra/main.bicep), or why it cannot run.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ skip: string } | { url: string, app: string, group: string, scope: string }}
 */
export function settingsFrom(env) {
    if ((env[SWITCH] ?? '').trim().toLowerCase() === 'false') return { skip: `${SWITCH}=false` };
    const url = (env.MCP_ENDPOINT ?? '').trim();
    const app = (env.AZURE_FUNCTION_APP_NAME ?? '').trim();
    const group = (env.AZURE_RESOURCE_GROUP ?? '').trim();
    if (!url || !app || !group) return { skip: 'MCP_ENDPOINT, AZURE_FUNCTION_APP_NAME or AZURE_RESOURCE_GROUP is not set (run azd provision first)' };
    return { url, app, group, scope: (env.MCP_AUTH_SCOPE ?? '').trim() };
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function output(command, args) {
    const result = spawnSync(command, args, { encoding: 'utf8', shell: process.platform === 'win32' });
    if (result.error || result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${(result.stderr || String(result.error)).trim()}`);
    return result.stdout.trim();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const settings = settingsFrom(process.env);
    if ('skip' in settings) {
        console.log(`Smoke check skipped: ${settings.skip}.`);
    } else {
        try {
            // With Entra sign-in a valid token is enough (MCP_FUNCTION_KEY_REQUIRED=false): the check sends the token alone,
            // so that it proves a signed-in client needs no key; without sign-in, the function key.
            const env = { ...process.env };
            if (settings.scope) env.MCP_BEARER_TOKEN = output('az', ['account', 'get-access-token', '--scope', settings.scope, '--query', 'accessToken', '-o', 'tsv']);
            else env.MCP_FUNCTION_KEY = output('az', ['functionapp', 'function', 'keys', 'list', '-g', settings.group, '-n', settings.app, '--function-name', 'mcp', '--query', 'default', '-o', 'tsv']);
            const result = spawnSync('npm', ['run', 'smoke', '--', settings.url, '--wait-ready', String(WAIT_READY_SECONDS)], {
                cwd: repoRoot,
                env,
                stdio: 'inherit',
                shell: process.platform === 'win32',
            });
            process.exitCode = result.status ?? 1;
        } catch (error) {
            console.error(error instanceof Error ? error.message : error);
            process.exitCode = 1;
        }
    }
}
