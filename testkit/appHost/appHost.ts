import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { unlessAvailable } from '../precondition';
import { repoRoot } from '../repoRoot';

/**
 * A browser host for the jobs' views (MCP Apps) in tests: Debian's Chromium, headless, driven by playwright-core (no
 * browser download, ever), on a page that embeds one view with the extension's host bridge (./page/host.ts). The
 * view's tool calls cross into this Node process (Playwright's exposeFunction) and go to the MCP client the test
 * gives, which talks to the running local host over HTTP.
 */

export const CHROMIUM = '/usr/bin/chromium';

/** The skip reason where Chromium is missing (required under CI=true, where .ci/run installs it). */
export function chromiumSkip(): string | false {
    return unlessAvailable(existsSync(CHROMIUM), `headless Chromium (${CHROMIUM}, Debian's chromium package) is not installed`);
}

/** Where the tests write screenshots of each view state (git-ignored). */
export const SCREENSHOTS = join(repoRoot, 'screenshots');

/** The flags that work here: no sandbox (root in a container), no GPU, and nothing that reaches the network itself. */
const FLAGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
];

let pageScript: Promise<string> | undefined;

/** The host page's script, bundled once per test process. */
function hostPageScript(): Promise<string> {
    pageScript ??= build({
        entryPoints: [resolve(__dirname, '..', '..', 'appHost', 'page', 'host.ts')],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'chrome111',
        logLevel: 'warning',
    }).then((out) => out.outputFiles[0]?.text ?? '');
    return pageScript;
}

export interface Browser {
    context: BrowserContext;
    close(): Promise<void>;
}

/** Chromium with a fresh profile of its own. */
export async function launchBrowser(): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), 'view-chromium-'));
    // A persistent context is how Playwright takes a --user-data-dir of ours.
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 800, height: 700 } });
    return {
        context,
        async close() {
            await context.close().catch(() => undefined);
            rmSync(profile, { recursive: true, force: true });
        },
    };
}

export type CallTool = (params: { name: string; arguments?: Record<string, unknown> }) => Promise<Record<string, unknown>>;

/** A listed tool as the host reads it: its name and MCP Apps `_meta.ui`. */
export interface ListedTool {
    name: string;
    _meta?: Record<string, unknown>;
}

/**
 * What a host lets a view call, as the spec has it: "Host MUST reject tools/call requests from apps for tools that
 * don't include "app"" in their visibility (default both; SEP-1865). VS Code does the same. Any other tool is refused.
 */
export function appCallable(tools: readonly ListedTool[], callTool: CallTool): CallTool {
    return async (params) => {
        const tool = tools.find((listed) => listed.name === params.name);
        const visibility = (tool?._meta?.ui as { visibility?: string[] } | undefined)?.visibility ?? ['model', 'app'];
        if (tool === undefined || !visibility.includes('app')) throw new Error(`The host does not let a view call ${params.name}`);
        return callTool(params);
    };
}

export interface ViewToOpen {
    html: string;
    csp?: { connectDomains?: string[]; resourceDomains?: string[] };
    toolName: string;
    toolInput: Record<string, unknown>;
    toolResult: Record<string, unknown>;
}

/** What the host page (./page/host.ts) puts on its window. */
interface PageApi {
    openView(view: ViewToOpen): Promise<void>;
    closeView(): Promise<void>;
}

/** One host page, its view's tool calls served by `callTool`, and every request the page makes recorded. */
export class ViewHost {
    /** URLs the page asked the network for: the view must ask for none. */
    readonly requests: string[] = [];
    /** Tool calls the view made through the host, by name. */
    readonly calls: string[] = [];
    readonly consoleErrors: string[] = [];

    private constructor(readonly page: Page) {}

    static async open(browser: Browser, callTool: CallTool): Promise<ViewHost> {
        const page = await browser.context.newPage();
        const host = new ViewHost(page);
        page.on('request', (request) => {
            if (!request.url().startsWith('about:') && !request.url().startsWith('data:')) host.requests.push(request.url());
        });
        page.on('console', (message) => {
            if (message.type() === 'error') host.consoleErrors.push(message.text());
        });
        await page.exposeFunction('mcpCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
            host.calls.push(params.name);
            return callTool(params);
        });
        await page.setContent('<!DOCTYPE html><html><head><title>view host</title></head><body style="margin: 16px; background: #f6f7f9"></body></html>');
        await page.addScriptTag({ content: await hostPageScript() });
        return host;
    }

    /** Embeds the view and hands it the tool's input and result, as a host does when the tool answers. */
    async show(view: ViewToOpen): Promise<void> {
        await this.page.evaluate((v) => (globalThis as unknown as PageApi).openView(v), view);
    }

    /** Tears the view down (as a host closing it) and removes its frame. */
    async closeView(): Promise<void> {
        await this.page.evaluate(() => (globalThis as unknown as PageApi).closeView());
    }

    get view(): FrameLocator {
        return this.page.frameLocator('#view');
    }

    /** The phase the view shows (data-phase: running, completed, cancelled, failed, not_found, error). */
    async phase(): Promise<string | null> {
        return this.view.locator('main').getAttribute('data-phase', { timeout: 10_000 });
    }

    /** The progress the view shows, from its bar's attributes. */
    async progress(): Promise<{ done: number; total: number } | undefined> {
        const main = this.view.locator('main');
        const [done, total] = await Promise.all([main.getAttribute('data-done'), main.getAttribute('data-total')]);
        return done === null || total === null ? undefined : { done: Number(done), total: Number(total) };
    }

    /** Waits until the view shows `phase`. */
    async waitForPhase(phase: string, timeoutMs = 300_000): Promise<void> {
        await this.view.locator(`main[data-phase="${phase}"]`).waitFor({ timeout: timeoutMs });
    }

    /** A screenshot of the view's frame, as screenshots/{name}.png. */
    async screenshot(name: string): Promise<string> {
        mkdirSync(SCREENSHOTS, { recursive: true });
        const path = join(SCREENSHOTS, `${name}.png`);
        await this.page.locator('#view').screenshot({ path });
        return path;
    }

    async close(): Promise<void> {
        await this.page.close().catch(() => undefined);
    }
}
