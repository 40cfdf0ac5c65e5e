import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport as Transport2026 } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ALL_JOBS, appCallable, type AppOnAzurite, type Backend, type Browser, type CallTool, CHAIN_12, chromiumSkip, describeOnEachBackend, invocationHolds, JOB_FIXTURES, launchBrowser, MINING_FIXTURE, PROTOCOL_2026, quickRedelivery, startAppOnAzurite, untilProcessIdle, ViewHost } from '@mcp-mining/testkit';

/**
 * Each job's view (MCP Apps) in a real browser: headless Chromium on a test host page that embeds the view with the
 * extension's own host bridge, the view's tool calls answered by a real MCP client of the app on the local host, over
 * HTTP, on both Durable backends. What a person sees: the progress rising, the chain re-checked, the count, Cancel,
 * the same run when the view is opened again; and what a client that did not declare the extension sees: nothing new.
 * Screenshots of each state go to screenshots/ (git-ignored).
 */

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const DECLARES_UI = { extensions: { [UI]: { mimeTypes: [MIME] } } };

/**
 * difficulty 12 from GENESIS: CHAIN_12, one range a block, each held until the view has seen the last. Hashing takes
 * milliseconds, so the wait for the next held range is a wait for the orchestration, never for a loaded core.
 */
const MINING_ARGS = { difficulty: 12, blocks: 4 };
/** 20 segments: a couple of seconds. */
const PRIMES_ARGS = { below: 10 ** 8 };
const PRIMES_BELOW_10_8 = 5_761_455;

type ToolResult = Record<string, unknown> & { structuredContent?: { status?: string; workflow_id?: string }; _meta?: Record<string, unknown> };

function settings(backend: Backend): Record<string, string> {
    // The default budget: small work ends within it on any machine; a run past it is held (devhost/worker/holds.ts).
    return { WAIT_BUDGET_SECONDS: '20', POLL_AFTER_SECONDS: '1', ...ALL_JOBS, ...quickRedelivery(backend) };
}

describeOnEachBackend('MCP Apps: each job\'s view in Chromium, against the app on the local host', (backend) => {
    describe('in headless Chromium', { skip: chromiumSkip() }, () => {
        let app: AppOnAzurite;
        let browser: Browser;
        let apps2025: Client2025;
        let apps2026: Client;
        const closers: Array<() => Promise<unknown>> = [];
        const hosts: ViewHost[] = [];

        before(async () => {
            app = await startAppOnAzurite(`views${backend}`, settings(backend), { durable: backend });
            browser = await launchBrowser();
            apps2025 = new Client2025({ name: 'views-host-2025', version: '1.0.0' }, { capabilities: DECLARES_UI });
            await apps2025.connect(new StreamableHTTPClientTransport(app.mcpUrl));
            closers.push(() => apps2025.close());
            apps2026 = new Client({ name: 'views-host-2026', version: '1.0.0' }, { capabilities: DECLARES_UI, versionNegotiation: { mode: { pin: PROTOCOL_2026 } } });
            await apps2026.connect(new Transport2026(app.mcpUrl));
            closers.push(() => apps2026.close());
        });
        after(async () => {
            for (const host of hosts) await host.close();
            for (const close of closers) await close().catch(() => undefined);
            await browser?.close();
            await app?.stop();
        });

        const call2025: CallTool = async (params) => (await apps2025.callTool({ name: params.name, arguments: params.arguments ?? {} })) as Record<string, unknown>;
        const call2026: CallTool = async (params) => (await apps2026.callTool({ name: params.name, arguments: params.arguments ?? {} })) as Record<string, unknown>;

        /** A host page whose view may call only the tools the listing lets an app call, as every host must. */
        async function openHostOn(client: Client2025 | Client, callTool: CallTool): Promise<ViewHost> {
            return openHost(appCallable((await client.listTools()).tools, callTool));
        }

        async function viewOf(client: { readResource(params: { uri: string }): Promise<{ contents: unknown[] }> }, uri: string) {
            const { contents } = await client.readResource({ uri });
            const [content] = contents as Array<{ uri: string; mimeType?: string; text?: string; _meta?: { ui?: { csp?: { connectDomains?: string[]; resourceDomains?: string[] } } } }>;
            assert.ok(content?.text, `${uri} has HTML`);
            assert.equal(content.mimeType, MIME);
            return { html: content.text, csp: content._meta?.ui?.csp ?? {} };
        }

        async function openHost(callTool: CallTool): Promise<ViewHost> {
            const host = await ViewHost.open(browser, callTool);
            hosts.push(host);
            return host;
        }

        /** The view's state every 200 ms until it shows `phase`: what a person watching it would have seen. */
        async function watchUntil(host: ViewHost, phase: string, onRunning?: (done: number) => Promise<void>): Promise<Array<{ phase: string; done?: number }>> {
            const seen: Array<{ phase: string; done?: number }> = [];
            const deadline = Date.now() + 300_000;
            for (;;) {
                // The count first, then the phase: a view that completes between the two reads is then seen completed,
                // never as running with every block done.
                const progress = await host.progress();
                const now = (await host.phase()) ?? 'none';
                seen.push({ phase: now, ...(progress === undefined ? {} : { done: progress.done }) });
                if (now === 'running' && progress !== undefined) await onRunning?.(progress.done);
                if (now === phase) return seen;
                assert.ok(!['failed', 'cancelled', 'not_found', 'error'].includes(now) || now === phase, `the view shows ${now}: ${JSON.stringify(seen.slice(-5))}`);
                assert.ok(Date.now() < deadline, `the view never showed ${phase}: ${JSON.stringify(seen.slice(-5))}`);
                await new Promise((resolve) => setTimeout(resolve, 200));
            }
        }

        test('2025 era: the start tools name the views, each has an app-only status tool, the views are listed and read as MCP App HTML with an empty CSP domain list', async () => {
            const { tools } = await apps2025.listTools();
            const uiOf = (name: string) => (tools.find((tool) => tool.name === name)?._meta as { ui?: { resourceUri?: string; visibility?: string[] } } | undefined)?.ui;
            const views = JOB_FIXTURES.map((fixture) => [fixture, `ui://${fixture.job}/workflow`] as const);
            for (const [fixture, uri] of views) {
                assert.deepEqual(uiOf(fixture.tools.start), { resourceUri: uri });
                assert.equal(uiOf(fixture.tools.get), undefined, 'the get tool names no view: the model\'s polls add none to the chat');
                assert.equal(uiOf(fixture.tools.cancel), undefined, 'the cancel tool shows no view');
                assert.deepEqual(uiOf(`${fixture.job}_view_status`), { visibility: ['app'] }, 'the view polls through a tool of its own');
                const { html, csp } = await viewOf(apps2025, uri);
                assert.match(html, /^<!DOCTYPE html>/);
                assert.deepEqual(csp, { connectDomains: [], resourceDomains: [] });
                // One document: no script, style sheet or font is loaded from anywhere (the page test below sees no request).
                assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|@import/i, 'nothing loaded from anywhere');
            }
            const { resources } = await apps2025.listResources();
            assert.deepEqual(resources.map((r) => r.uri).sort(), views.map(([, uri]) => uri).sort());
        });

        test('mining: a run past the budget shows its progress rising, then the verified chain; opened again, the same run', async () => {
            // Each block is one held MineBlock call, let go once the view has shown the blocks before it: the view
            // sees every count, on any machine.
            const holds = invocationHolds(app.host.url);
            await holds.hold('MineBlock');
            const result = (await call2025({ name: 'start_mining', arguments: MINING_ARGS })) as ToolResult;
            assert.equal(result.structuredContent?.status, 'running', JSON.stringify(result.structuredContent));
            assert.ok(result._meta?.workflow, 'the answer carries the run facts for the view');
            const workflowId = String(result.structuredContent?.workflow_id);
            const host = await openHostOn(apps2025, call2025);
            await host.show({ ...(await viewOf(apps2025, 'ui://mining/workflow')), toolName: 'start_mining', toolInput: MINING_ARGS, toolResult: result });
            let shot = false;
            let letGo = -1;
            const seen = await watchUntil(host, 'completed', async (done) => {
                if (done >= 1 && !shot) {
                    shot = true;
                    await host.screenshot(`mining-running-${backend}`);
                }
                // The phase and the count are two reads of the view: a view that completed between them shows running
                // with every block done, and then no range is left to let go.
                if (done > letGo && done < MINING_ARGS.blocks) {
                    await holds.waitForHeld('MineBlock');
                    await holds.release('MineBlock');
                    letGo = done;
                }
            });
            await holds.stop('MineBlock');
            const running = seen.filter((s) => s.phase === 'running' && s.done !== undefined).map((s) => s.done as number);
            assert.ok(running.length > 0, `the view showed the run running: ${JSON.stringify(seen)}`);
            assert.deepEqual(running, [...running].sort((a, b) => a - b), 'progress never goes back');
            assert.deepEqual([...new Set(running)], [0, 1, 2, 3], `the view showed each block done: ${JSON.stringify(running)}`);
            await host.screenshot(`mining-completed-${backend}`);

            const chainShown = async (view: ViewHost) => {
                const rows = view.view.locator('table.result-table tbody tr');
                assert.equal(await rows.count(), 4);
                const shown = [];
                for (let i = 0; i < 4; i++) {
                    const cells = await rows.nth(i).locator('td').allTextContents();
                    shown.push({ index: Number(cells[0]), nonce: Number((cells[1] ?? '').replaceAll(',', '')), hash: cells[2], zeroBits: Number(cells[3]), checked: cells[4] });
                }
                return shown;
            };
            const shown = await chainShown(host);
            assert.deepEqual(shown.map(({ index, nonce, hash }) => ({ index, nonce, hash })), CHAIN_12, 'the chain as computed independently');
            for (const row of shown) {
                assert.ok(row.zeroBits >= 12, `block ${row.index} shows ${row.zeroBits} zero bits`);
                assert.equal(row.checked, '✓', `block ${row.index} re-checked in the view`);
            }
            // The zero hex digits of each hash are marked.
            assert.deepEqual(await host.view.locator('table.result-table tbody tr td mark').allTextContents(), ['000', '000', '000', '000']);
            assert.equal(await host.view.locator('.resource code').textContent(), `mining://workflows/${workflowId}`);
            assert.notEqual(await host.view.locator('dd.elapsed').textContent(), '—');
            assert.equal(await host.view.locator('button.cancel').isHidden(), true, 'no Cancel once it ended');

            // Opened again later from the same tool result alone: the same run, its end read through the app-only status tool.
            await host.closeView();
            const calls = host.calls.length;
            await host.show({ ...(await viewOf(apps2025, 'ui://mining/workflow')), toolName: 'start_mining', toolInput: MINING_ARGS, toolResult: result });
            await host.waitForPhase('completed');
            assert.deepEqual(await chainShown(host), shown);
            assert.equal(await host.view.locator('.workflow code').textContent(), workflowId);
            await host.screenshot(`mining-reopened-${backend}`);
            assert.ok(host.calls.length > calls, 'the reopened view asked the server');
            assert.deepEqual([...new Set(host.calls)], ['mining_view_status'], 'the view polled through its app-only status tool only');
            assert.deepEqual(host.requests, [], 'the view asked the network for nothing');
        });

        test('mining: Cancel ends the run through the host, and the view shows cancelled', async () => {
            // Held (devhost/worker/holds.ts): still running after the budget, and mining nothing meanwhile.
            const holds = invocationHolds(app.host.url);
            await holds.hold('MineBlock');
            const result = (await call2025({ name: 'start_mining', arguments: MINING_FIXTURE.long })) as ToolResult;
            assert.equal(result.structuredContent?.status, 'running');
            const workflowId = String(result.structuredContent?.workflow_id);
            const host = await openHostOn(apps2025, call2025);
            await host.show({ ...(await viewOf(apps2025, 'ui://mining/workflow')), toolName: 'start_mining', toolInput: MINING_FIXTURE.long, toolResult: result });
            await host.waitForPhase('running', 30_000);
            await host.screenshot(`mining-before-cancel-${backend}`);
            await host.view.locator('button.cancel').click();
            await host.waitForPhase('cancelled', 120_000);
            assert.equal(await host.view.locator('.badge').textContent(), 'cancelled');
            assert.match((await host.view.locator('.problem').textContent()) ?? '', /^The workflow was cancelled before it finished\. \(reason: cancelled\)$/);
            await host.screenshot(`mining-cancelled-${backend}`);
            assert.ok(host.calls.includes('cancel_mining'), 'Cancel called the job\'s cancel tool');
            const after = (await call2025({ name: 'get_mining_result', arguments: { workflow_id: workflowId } })) as ToolResult;
            assert.deepEqual({ status: after.structuredContent?.status, reason: (after.structuredContent as { reason?: string }).reason }, { status: 'failed', reason: 'cancelled' });
            await holds.stop('MineBlock');
            await untilProcessIdle(app.host.pid, 'the host after the cancel');
        });

        test('count_primes over 2026-07-28: the view shows the count and the range', async () => {
            const { tools } = await apps2026.listTools();
            assert.equal((tools.find((tool) => tool.name === 'start_prime_count')?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri, 'ui://count_primes/workflow');
            const result = (await call2026({ name: 'start_prime_count', arguments: PRIMES_ARGS })) as ToolResult;
            const host = await openHostOn(apps2026, call2026);
            await host.show({ ...(await viewOf(apps2026, 'ui://count_primes/workflow')), toolName: 'start_prime_count', toolInput: PRIMES_ARGS, toolResult: result });
            await host.waitForPhase('completed');
            const facts = await host.view.locator('dl.facts').innerText();
            assert.match(facts, new RegExp(`Primes\\s+${PRIMES_BELOW_10_8.toLocaleString('en-US')}`));
            assert.match(facts, /Range\s+2 ≤ p < 100,000,000/);
            assert.equal(await host.progress().then((p) => p?.total), 20);
            await host.screenshot(`count_primes-completed-${backend}`);
            assert.deepEqual(host.requests, []);
        });

        for (const fixture of JOB_FIXTURES) {
            test(`[${fixture.job}] the job's view shows a completed run with its result, from the tool result alone, loading nothing`, async () => {
                const uri = `ui://${fixture.job}/workflow`;
                const result = (await call2026({ name: fixture.tools.start, arguments: fixture.inline })) as ToolResult;
                assert.equal((result.structuredContent as { status?: string } | undefined)?.status, 'completed', JSON.stringify(result));
                const host = await openHostOn(apps2026, call2026);
                await host.show({ ...(await viewOf(apps2026, uri)), toolName: fixture.tools.start, toolInput: fixture.inline, toolResult: result });
                await host.waitForPhase('completed');
                // The result section the job's renderer (or the layout from its result schema) drew, and nothing loaded.
                assert.ok((await host.view.locator('section.result').innerText()).trim().length > 0, 'the view shows the result');
                await host.screenshot(`${fixture.job}-inline-${backend}`);
                assert.deepEqual(host.requests, []);
            });
        }

        test('a client that did not declare the extension sees no _meta.ui, no ui:// resource and no run facts, in either era', async () => {
            const plain2025 = new Client2025({ name: 'plain-2025', version: '1.0.0' });
            const transport2025 = new StreamableHTTPClientTransport(app.mcpUrl);
            await plain2025.connect(transport2025);
            closers.push(() => plain2025.close());
            assert.equal(transport2025.sessionId, undefined, 'no session id for a client that declared nothing');
            const plain2026 = new Client({ name: 'plain-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PROTOCOL_2026 } } });
            await plain2026.connect(new Transport2026(app.mcpUrl));
            closers.push(() => plain2026.close());
            for (const [era, client] of [
                ['2025', plain2025],
                ['2026', plain2026],
            ] as const) {
                const { tools } = await client.listTools();
                assert.deepEqual(tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name), [], `${era}: no tool names a view`);
                assert.deepEqual(tools.filter((tool) => tool.name.endsWith('_view_status')), [], `${era}: no app-only tool`);
                assert.deepEqual((await client.listResources()).resources, [], `${era}: no resource listed`);
                await assert.rejects(client.readResource({ uri: 'ui://mining/workflow' }), /not found/i, `${era}: the view is not there`);
                const answer = (await client.callTool({ name: 'start_mining', arguments: { difficulty: 4, blocks: 1 } })) as ToolResult;
                assert.equal(answer._meta?.workflow, undefined, `${era}: no run facts`);
                assert.equal(client.getServerCapabilities()?.extensions?.[UI], undefined, `${era}: the extension is not advertised`);
            }
            assert.deepEqual(apps2025.getServerCapabilities()?.extensions, { [UI]: {} });
        });
    });
});
