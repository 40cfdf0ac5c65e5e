// @ts-check
/**
 * azd `preprovision` hook (see azure.yaml), before anything is created: checks the app settings the azd environment
 * sets (`azd env set ENABLED_JOBS mining,count_primes`) with the app's own rules, src/config.ts's parseConfig, so a
 * value the app would refuse at start (a job the registry does not have, a bound crossed) stops the deployment here,
 * with the app's own sentence. The Bicep bounds its numbers too; only the code knows the jobs (src/jobs/index.ts, the
 * one list of them), so a new job needs no edit of the template.
 *
 * It builds the app first (npm run build), so the rules are those of the code that is about to be deployed.
 * Plain JavaScript on purpose: it runs straight from the checkout.
 *
 *   node infra/hooks/check-settings.mjs            (azd runs it with the environment's values in process.env)
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
/** The task hub the template names when the environment names none (infra/main.bicep, taskHubName). */
const TEMPLATE_TASK_HUB = 'mininghub';

/**
 * The settings the environment gives, as the app would read them: every setting the app has that is set and not
 * empty (azd passes an unset value as an empty string, and the template then uses the code's default).
 * @param {readonly string[]} names
 * @param {Record<string, string | undefined>} env
 */
export function settingsFrom(names, env) {
    /** @type {Record<string, string>} */
    const settings = { TASKHUB_NAME: TEMPLATE_TASK_HUB };
    for (const name of names) {
        const value = env[name];
        if (value !== undefined && value.trim() !== '') settings[name] = value;
    }
    return settings;
}

/**
 * The app's verdict on the environment's settings: undefined when it would start with them, else its message.
 * @param {string} root the repository, built (dist/src)
 * @param {Record<string, string | undefined>} env
 */
export function checkSettings(root, env) {
    const require = createRequire(join(root, 'package.json'));
    const { SETTING_NAMES, parseConfig } = require(join(root, 'dist', 'src', 'config.js'));
    try {
        parseConfig(settingsFrom(SETTING_NAMES, env));
        return undefined;
    } catch (error) {
        return error instanceof Error ? error.message : String(error);
    }
}

function main() {
    const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit', shell: process.platform === 'win32' });
    if (built.status !== 0) {
        console.error('check-settings: npm run build failed; run npm ci, then azd provision again.');
        process.exit(1);
    }
    const problem = checkSettings(repoRoot, process.env);
    if (problem !== undefined) {
        console.error(`The app would refuse this environment's settings: ${problem}`);
        console.error('Change the value with `azd env set <SETTING> <value>` (docs/contract.md, "Settings"), then run azd provision again.');
        process.exit(1);
    }
    console.log('check-settings: the app accepts the environment\'s settings.');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
