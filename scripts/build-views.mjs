// @ts-check
/**
 * `npm run build`, after tsc: one HTML document per job, its view for MCP Apps (src/views/), written to
 * dist/src/views/{job}.html, where the app reads it (src/mcp/workflowView.ts) and from where it is deployed with the
 * rest of dist/src (infra/hooks/stage-package.mjs).
 *
 * - Type-checks the browser code first (tsconfig.browser.json): esbuild strips types without checking them.
 * - Each job's spec comes from its compiled definition (dist/src/jobs, src/views/viewSpec.ts); its renderer, when it
 *   has one, is the `resultView` of src/jobs/{folder}/resultView.ts, matched to the job by the name it gives.
 * - esbuild bundles the view, the job's renderer and the MCP Apps client library (@modelcontextprotocol/ext-apps)
 *   into one script, inlined into the document with the styles as a string it attaches itself (a host may move or
 *   drop the document's head): the view loads nothing from anywhere. zod's message
 *   translations are left out but English (onlyEnglish): the library reaches zod's whole namespace (`z.config`), and
 *   the view shows none of its messages; that halves the document.
 *
 * Plain JavaScript on purpose: it runs from the checkout, with test/run.mjs, before anything else reads dist/.
 *   node scripts/build-views.mjs            (after tsc -p .)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const OUT_DIR = join(root, 'dist', 'src', 'views');
/** Browsers of the hosts that render MCP Apps (VS Code's Electron, Chromium, current Safari and Firefox). */
const TARGET = ['chrome111', 'firefox113', 'safari16.4'];

/**
 * The document's own policy, under whatever the host sets (MCP Apps hosts build theirs from the resource's `csp`,
 * which is empty here): no network of any kind, inline script and style only (the spec's default, so a host's own
 * additions are not broken).
 */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

function typeCheck() {
    const tsc = require.resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.browser.json')], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error('The browser code does not type-check (tsconfig.browser.json)');
}

/** Each job's renderer source, by the job name its compiled module gives. */
function renderers(jobNames) {
    const found = new Map();
    const jobsDir = join(root, 'src', 'jobs');
    for (const folder of readdirSync(jobsDir, { withFileTypes: true })) {
        if (!folder.isDirectory() || !existsSync(join(jobsDir, folder.name, 'resultView.ts'))) continue;
        const compiled = join(root, 'dist', 'src', 'jobs', folder.name, 'resultView.js');
        const job = require(compiled).resultView?.job;
        if (!jobNames.includes(job)) throw new Error(`src/jobs/${folder.name}/resultView.ts names job ${JSON.stringify(job)}, which the registry does not have`);
        if (found.has(job)) throw new Error(`two renderers name job ${job}`);
        found.set(job, `./src/jobs/${folder.name}/resultView.ts`);
    }
    return found;
}

/** A script's text safe inside <script>…</script>: no `</script` can end it early. */
function inlineScript(js) {
    return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** zod's `locales` namespace with English only, in place of its every language (see the header). */
const onlyEnglish = {
    name: 'zod-english-only',
    setup(build) {
        build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
            args.importer.includes(`${join('node_modules', 'zod')}`) ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-en' } : undefined
        );
        build.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
            contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
            resolveDir: dirname(args.path),
            loader: 'js',
        }));
    },
};

function escapeHtml(text) {
    return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

async function viewOf(spec, renderer, css) {
    const entry = [
        // First: zod's settings must hold before ext-apps builds its schemas (src/views/app/zodJitless.ts).
        "import './src/views/app/zodJitless.ts';",
        "import { mountWorkflowView } from './src/views/app/main.ts';",
        renderer === undefined ? 'const resultView = undefined;' : `import { resultView } from '${renderer}';`,
        `mountWorkflowView(${JSON.stringify(spec)}, resultView, ${JSON.stringify(css)});`,
    ].join('\n');
    const bundled = await build({
        stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: `${spec.job}-view.ts` },
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: TARGET,
        minify: true,
        legalComments: 'none',
        charset: 'utf8',
        logLevel: 'warning',
        plugins: [onlyEnglish],
    });
    const js = bundled.outputFiles[0]?.text ?? '';
    return [
        '<!DOCTYPE html>',
        '<html lang="en">',
        '<head>',
        '<meta charset="utf-8">',
        `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        `<title>${escapeHtml(spec.title)}</title>`,
        '</head>',
        '<body>',
        `<script>${inlineScript(js)}</script>`,
        '</body>',
        '</html>',
        '',
    ].join('\n');
}

async function main() {
    typeCheck();
    const { JOBS } = require(join(root, 'dist', 'src', 'jobs', 'index.js'));
    const { viewSpecOf } = require(join(root, 'dist', 'src', 'views', 'viewSpec.js'));
    const jobs = Object.values(JOBS);
    const byJob = renderers(jobs.map((job) => job.name));
    const css = readFileSync(join(root, 'src', 'views', 'app', 'view.css'), 'utf8');
    mkdirSync(OUT_DIR, { recursive: true });
    for (const job of jobs) {
        const html = await viewOf(viewSpecOf(job), byJob.get(job.name), css);
        const file = join(OUT_DIR, `${job.name}.html`);
        writeFileSync(file, html);
        console.log(`view ${job.name}: ${relative(root, file)} (${Math.round(html.length / 1024)} KiB${byJob.has(job.name) ? ', own renderer' : ''})`);
    }
}

main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
});
