// @ts-check
/**
 * The project's Bicep compiler: restores the pinned Bicep CLI from NuGet (once; later calls find it on
 * disk) and runs it. `npm test` uses it to compile and lint infra/main.bicep (test/infra/template.ts).
 *
 *   node infra/tools/bicep.mjs build infra/main.bicep --stdout   any bicep command line
 *   node infra/tools/bicep.mjs --locate                           restore if needed, print the binary's path
 *
 * The version is pinned in infra/tools/bicep/bicep-cli.csproj (a restore-only project). Restoring needs
 * the .NET SDK (`dotnet`) and a NuGet feed that serves Azure.Bicep.CommandLine.<runtime>; the package is
 * extracted into infra/tools/bicep/packages (git-ignored), so nothing outside the checkout changes.
 * Without `dotnet` the script exits with NO_DOTNET_EXIT_CODE, which the tests turn into a skip (or a
 * failure in CI).
 *
 * Plain JavaScript on purpose: it runs straight from the checkout, before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The restore-only project, relative to the repo root. */
export const BICEP_PROJECT = 'infra/tools/bicep/bicep-cli.csproj';
/** Where NuGet extracts the package, relative to the repo root (git-ignored). */
export const PACKAGES_DIR = 'infra/tools/bicep/packages';
/** Exit code of this script when the .NET SDK is not installed. */
export const NO_DOTNET_EXIT_CODE = 3;

/** Raised when `dotnet` cannot be started, so the compiler cannot be restored. */
export class DotnetMissingError extends Error {}

/**
 * The pinned compiler version, read from the project so it is written in one place only.
 * @param {string} repoRoot
 */
export function bicepVersion(repoRoot) {
    const project = readFileSync(join(repoRoot, BICEP_PROJECT), 'utf8');
    const match = /<BicepVersion>\s*([0-9][0-9A-Za-z.+-]*)\s*<\/BicepVersion>/.exec(project);
    if (!match?.[1]) throw new Error(`${BICEP_PROJECT} has no <BicepVersion>`);
    return match[1];
}

/**
 * The NuGet runtime id of the Bicep CLI package for this machine (Azure.Bicep.CommandLine.<rid>).
 * @param {NodeJS.Platform} platform
 * @param {string} arch
 */
export function runtimeId(platform = process.platform, arch = process.arch) {
    const os = { linux: 'linux', darwin: 'osx', win32: 'win' }[/** @type {string} */ (platform)];
    const cpu = { x64: 'x64', arm64: 'arm64' }[arch];
    if (!os || !cpu) throw new Error(`No Bicep CLI package for ${platform}/${arch}`);
    return `${os}-${cpu}`;
}

/**
 * Where the restored binary is (whether or not it is there yet).
 * @param {string} repoRoot
 */
export function bicepPath(repoRoot) {
    const rid = runtimeId();
    // NuGet lower-cases package folders.
    const packageDir = join(repoRoot, PACKAGES_DIR, `azure.bicep.commandline.${rid}`, bicepVersion(repoRoot));
    return join(packageDir, 'tools', process.platform === 'win32' ? 'bicep.exe' : 'bicep');
}

/**
 * True once NuGet has finished extracting the package: it writes .nupkg.metadata last.
 * @param {string} binary
 */
function restored(binary) {
    return existsSync(binary) && existsSync(join(dirname(binary), '..', '.nupkg.metadata'));
}

/**
 * Restores the compiler if it is not on disk yet, makes it executable and returns its path.
 * Safe to call from several processes at once: each restores with its own intermediate folder, and
 * NuGet serialises the extraction of one package.
 * @param {string} repoRoot
 * @param {(line: string) => void} [log]
 */
export function ensureBicep(repoRoot, log = () => {}) {
    const binary = bicepPath(repoRoot);
    if (!restored(binary)) {
        log(`Restoring Bicep CLI ${bicepVersion(repoRoot)} (${runtimeId()}) with dotnet restore ${BICEP_PROJECT}`);
        // The restore's intermediate files go to a temporary folder, not next to the project.
        const obj = mkdtempSync(join(tmpdir(), 'bicep-restore-'));
        try {
            const result = spawnSync(
                'dotnet',
                [
                    'restore',
                    join(repoRoot, BICEP_PROJECT),
                    '--packages',
                    join(repoRoot, PACKAGES_DIR),
                    `-p:BicepRuntime=${runtimeId()}`,
                    `-p:MSBuildProjectExtensionsPath=${obj}/`,
                ],
                { encoding: 'utf8', env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } }
            );
            if (result.error && /** @type {NodeJS.ErrnoException} */ (result.error).code === 'ENOENT') {
                throw new DotnetMissingError('the .NET SDK (dotnet) is not installed, so the Bicep CLI cannot be restored from NuGet');
            }
            if (result.error) throw result.error;
            if (result.status !== 0) {
                throw new Error(`dotnet restore ${BICEP_PROJECT} failed (exit ${String(result.status)}):\n${result.stdout}${result.stderr}`);
            }
        } finally {
            rmSync(obj, { recursive: true, force: true });
        }
        if (!restored(binary)) throw new Error(`dotnet restore succeeded, but ${binary} is not there`);
    }
    // NuGet may extract without the execute bit.
    if (process.platform !== 'win32' && (statSync(binary).mode & 0o111) !== 0o111) chmodSync(binary, 0o755);
    return binary;
}

// Run as a script, not when a test imports the helpers above.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const args = process.argv.slice(2);
    let binary;
    try {
        binary = ensureBicep(repoRoot, (line) => console.error(line));
    } catch (error) {
        console.error(error instanceof Error ? error.message : error);
        process.exit(error instanceof DotnetMissingError ? NO_DOTNET_EXIT_CODE : 1);
    }
    if (args.length === 1 && args[0] === '--locate') {
        console.log(binary);
    } else {
        const result = spawnSync(binary, args, { stdio: 'inherit' });
        if (result.error) {
            console.error(result.error.message);
            process.exit(1);
        }
        process.exit(result.status ?? 1);
    }
}
