import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromiumSkip, JOB_FIXTURES, launchBrowser, repoRoot } from '@mcp-mining/testkit';

/**
 * Each built view under the ways hosts deliver it (issue 38), in headless Chromium, in a sandboxed frame under the
 * spec's default CSP (SEP-1865, "Content Security Policy Enforcement"): the document verbatim (the ext-apps bridge,
 * the project's host page), wrapped in the host's own document (the Inspector: its CSP `<meta>` first, the app's
 * markup inside `<body>`), and with its head dropped. In each, at 320 and 760 px: the view's stylesheet applies
 * (computed styles, not text), nothing runs off the side, and the frame reports no CSP violation. No server: the
 * view draws its waiting state before the host answers.
 */

const DEFAULT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'none'; img-src data:; font-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'";
const POLICY = `<meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`;
/** The test's instrument, first in the frame: counts the frame's CSP violation events from the start. */
const COUNTER = '<script>window.cspReports=[];document.addEventListener("securitypolicyviolation",(e)=>window.cspReports.push(e.violatedDirective+" "+e.blockedURI+" at "+e.lineNumber+":"+e.columnNumber));</script>';

const DELIVERIES: Record<string, (html: string) => string> = {
    verbatim: (html) => html.replace(/<head>/i, `<head>${POLICY}${COUNTER}`),
    'wrapped in the host\'s document': (html) => `<!DOCTYPE html><html><head>${POLICY}${COUNTER}</head><body>${html}</body></html>`,
    'head dropped': (html) => html.replace(/<head>[\s\S]*<\/head>/i, `<head>${POLICY}${COUNTER}</head>`),
};

/** The host page's part: the view in a sandboxed frame (scripts only, an opaque origin), `px` wide. Browser code, as text. */
function mountScript(doc: string, px: number): string {
    return `(() => {
        const frame = document.createElement('iframe');
        frame.id = 'view';
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.style.cssText = 'width: ${px}px; height: 480px; border: 0';
        frame.srcdoc = ${JSON.stringify(doc)};
        document.body.append(frame);
    })()`;
}

interface Seen {
    display: string;
    font: string;
    badgeRadius: string;
    overflow: number;
    cspReports: string[];
    bodyHasOthers: boolean;
}

/** What the frame shows, read inside it (browser code, as text). */
const LOOK = `(() => {
    const main = document.querySelector('main.card');
    return {
        display: getComputedStyle(main).display,
        font: getComputedStyle(document.body).fontFamily,
        badgeRadius: getComputedStyle(main.querySelector('.badge')).borderTopLeftRadius,
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        cspReports: window.cspReports,
        bodyHasOthers: [...document.body.children].some((child) => child.tagName === 'SCRIPT'),
    };
})()`;

describe('each view, however its host delivers it', { skip: chromiumSkip() }, () => {
    let browser: Browser;
    before(async () => {
        browser = await launchBrowser();
    });
    after(async () => {
        await browser?.close();
    });

    for (const { job } of JOB_FIXTURES) {
        const html = () => readFileSync(join(repoRoot, 'dist', 'src', 'views', `${job}.html`), 'utf8');
        for (const [delivery, deliver] of Object.entries(DELIVERIES)) {
            for (const width of [320, 760]) {
                test(`${job}: ${delivery}, ${width} px: styled, within the frame, no CSP report`, async () => {
                    const page = await browser.context.newPage();
                    try {
                        await page.setContent('<!DOCTYPE html><html><body style="margin: 0"></body></html>');
                        await page.evaluate(mountScript(deliver(html()), width));
                        const card = page.frameLocator('#view').locator('main.card');
                        await card.waitFor({ timeout: 30_000 });
                        const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
                        assert.ok(frame !== undefined, 'the view has its frame');
                        const seen = (await frame.evaluate(LOOK)) as Seen;
                        assert.equal(seen.display, 'flex', 'the card is laid out by the view\'s stylesheet');
                        assert.doesNotMatch(seen.font, /Times/, 'the body has the view\'s font, not the browser default');
                        assert.equal(seen.badgeRadius, '999px', 'the badge is styled');
                        assert.equal(seen.overflow, 0, 'nothing runs off the side of the frame');
                        assert.deepEqual(seen.cspReports, [], 'no CSP violation under the default CSP');
                        assert.ok(seen.bodyHasOthers, 'the view left the host\'s and its own script in place');
                    } finally {
                        await page.close();
                    }
                });
            }
        }
    }
});
