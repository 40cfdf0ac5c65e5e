import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { progressOf } from './statusObjects';
import type { ToolResult } from './toolResults';
import { APP_HTML_MIME_TYPE } from './uiExtension';
import type { JobDefinition, JobProgress } from '../jobs/job';
import { RUN_FACTS_KEY, viewUri, type RunFacts } from '../views/contract';
import { timeMs, type DurableStatusLike } from '../workflow/durableStatus';

/**
 * The server side of each job's view (MCP Apps, ./uiExtension.ts): the `ui://{job}/workflow` resource, one HTML
 * document that scripts/build-views.mjs builds from the job's definition and src/views/, how the job's start and get
 * tools name it, and the run facts a view reads beside the status object (../views/contract.ts). Only for clients
 * that declared the extension: each era's server decides per request.
 */

export interface ServedView {
    job: JobDefinition;
    uri: string;
    html: string;
}

/** Where the build puts a job's view: dist/src/views/{job}.html, beside this module's dist/src/mcp. */
export function viewFile(job: JobDefinition): string {
    return join(__dirname, '..', 'views', `${job.name}.html`);
}

/** The job's view as built, or undefined when the build made none (then the job is served without one). */
export function loadView(job: JobDefinition): ServedView | undefined {
    let html: string;
    try {
        html = readFileSync(viewFile(job), 'utf8');
    } catch {
        return undefined;
    }
    return { job, uri: viewUri(job.name), html };
}

/**
 * How a tool names its view in tools/list. Both keys, as the extension's own registerAppTool writes them: `ui` is the
 * extension's, and hosts built on its earlier releases read the flat `ui/resourceUri` (deprecated, still read).
 */
export function viewToolMeta(view: ServedView): Record<string, unknown> {
    return { ui: { resourceUri: view.uri }, 'ui/resourceUri': view.uri };
}

/**
 * The view's resource metadata: an empty CSP domain list (the view fetches nothing: everything it shows comes through
 * the caller's own tool calls, and its scripts and styles are inline), and a border from the host.
 */
const VIEW_RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/** How resources/list lists the view. */
export function viewListing(view: ServedView) {
    return { uri: view.uri, name: `${view.job.name}-workflow-view`, ...viewMetadata(view) };
}

/** The view's title, description, MIME type and metadata, as both eras register it. */
export function viewMetadata(view: ServedView) {
    return {
        title: `${capitalized(view.job.noun)} view`,
        description: `A live view of one ${view.job.noun}: its progress, elapsed and remaining time, its result, and a Cancel button.`,
        mimeType: APP_HTML_MIME_TYPE,
        _meta: VIEW_RESOURCE_META,
    };
}

/** resources/read of the view. */
export function viewContents(view: ServedView) {
    return { contents: [{ uri: view.uri, mimeType: APP_HTML_MIME_TYPE, text: view.html, _meta: VIEW_RESOURCE_META }] };
}

/** "Mining workflow" of "mining workflow": how a title starts. */
export function capitalized(text: string): string {
    return text.charAt(0).toUpperCase() + text.slice(1);
}

function isoOf(value: Date | string | undefined): string | undefined {
    const ms = timeMs(value);
    return ms === undefined ? undefined : new Date(ms).toISOString();
}

/**
 * The run facts of a workflow as read (undefined: not read yet, as right after a start), for a view: its times, and
 * its progress in the job's own terms (its counts and line), so the view needs no knowledge of the job's fields.
 */
export function runFacts(job: JobDefinition, durable: DurableStatusLike | undefined, nowMs: number, initialProgress?: JobProgress): RunFacts {
    const created = isoOf(durable?.createdTime);
    const updated = isoOf(durable?.lastUpdatedTime);
    const progress = durable === undefined ? initialProgress : progressOf(job, durable, initialProgress);
    const facts: RunFacts = { ...(created === undefined ? {} : { created_at: created }), ...(updated === undefined ? {} : { updated_at: updated }), as_of: new Date(nowMs).toISOString() };
    if (progress === undefined) return facts;
    try {
        const { done, total } = job.progress.counts(progress);
        return { ...facts, done, total, message: job.progress.message(progress) };
    } catch {
        // A progress of another shape (a workflow of an older release) leaves the counts out; the view shows none.
        return facts;
    }
}

/** The tool answer with the run facts in its `_meta` (for a client that shows the view). */
export function withRunFacts(result: ToolResult, facts: RunFacts): ToolResult {
    const meta = typeof result._meta === 'object' && result._meta !== null ? result._meta : {};
    return { ...result, _meta: { ...meta, [RUN_FACTS_KEY]: facts } };
}
