import { runChecks, type StepResult } from './checks';
import { McpSession, type Target } from './session';

/**
 * The post-deployment smoke check (docs/deployment.md, "Check a deployment"):
 *
 *   npm run smoke -- <mcp url> [<function key>] [--wait-ready <seconds>] [--json]
 *
 * The key may come from MCP_FUNCTION_KEY instead, and an Entra access token (App Service Authentication)
 * from MCP_BEARER_TOKEN; environment variables keep both out of the process list. Exits 0 when every
 * step holds, 1 when one fails, 2 on a usage error.
 */

const USAGE = 'usage: npm run smoke -- <mcp url, e.g. https://<host>/api/mcp> [<function key>] [--wait-ready <seconds>] [--json]';

function parse(argv: string[], env: NodeJS.ProcessEnv): { target: Target; json: boolean } {
    const positional: string[] = [];
    let waitReadySeconds = 0;
    let json = false;
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i] ?? '';
        if (arg === '--json') json = true;
        else if (arg === '--wait-ready') {
            waitReadySeconds = Number(argv[++i]);
            if (!Number.isInteger(waitReadySeconds) || waitReadySeconds < 0 || waitReadySeconds > 1800) throw new Error('--wait-ready takes a number of seconds from 0 to 1800');
        } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
        else positional.push(arg);
    }
    if (positional.length < 1 || positional.length > 2) throw new Error('give the MCP endpoint URL, and the function key unless MCP_FUNCTION_KEY holds it');
    let url: URL;
    try {
        url = new URL(positional[0] ?? '');
    } catch {
        throw new Error(`${positional[0] ?? ''} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('the URL must be http or https');
    const functionKey = positional[1] ?? env.MCP_FUNCTION_KEY;
    const bearerToken = env.MCP_BEARER_TOKEN;
    return { target: { url, waitReadySeconds, ...(functionKey ? { functionKey } : {}), ...(bearerToken ? { bearerToken } : {}) }, json };
}

function figuresTable(results: StepResult[]): string[] {
    const lines = ['', 'latency (ms)'];
    for (const result of results) {
        for (const [call, ms] of Object.entries(result.figures)) lines.push(`  ${`${result.step} / ${call}`.padEnd(62)} ${Math.round(ms).toString().padStart(7)}`);
    }
    return lines;
}

async function main(): Promise<number> {
    let options: ReturnType<typeof parse>;
    try {
        options = parse(process.argv.slice(2), process.env);
    } catch (error) {
        console.error(`${(error as Error).message}\n${USAGE}`);
        return 2;
    }
    const { target, json } = options;
    console.log(`Smoke check of ${target.url.href}${target.bearerToken ? ' (with an Entra token)' : ''}`);
    let opened: Awaited<ReturnType<typeof McpSession.open>>;
    try {
        opened = await McpSession.open(target);
    } catch (error) {
        console.error(`FAIL  connect: ${(error as Error).message}`);
        return 1;
    }
    console.log(`ok    connect: initialize in ${Math.round(opened.ms)} ms`);
    let results: StepResult[];
    try {
        results = await runChecks(opened.session, (line) => console.log(line), { signedIn: target.bearerToken !== undefined });
    } finally {
        await opened.session.close().catch(() => undefined);
    }
    results.unshift({ step: 'connect', ok: true, detail: 'initialize', figures: { initialize: opened.ms } });
    for (const line of figuresTable(results)) console.log(line);
    const failed = results.filter((r) => !r.ok);
    console.log(failed.length === 0 ? `\nAll ${results.length} steps passed.` : `\n${failed.length} of ${results.length} steps failed: ${failed.map((r) => r.step).join(', ')}`);
    if (json) console.log(JSON.stringify({ ok: failed.length === 0, results }));
    return failed.length === 0 ? 0 : 1;
}

main().then(
    (code) => {
        process.exitCode = code;
    },
    (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
    }
);
