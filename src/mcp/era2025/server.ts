import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
    ErrorCode,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ListToolsRequestSchema,
    McpError,
    ReadResourceRequestSchema,
    type ListResourceTemplatesResult,
    type ListToolsResult,
    type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { catalogFor, offeredTools, uiToolMeta, type Catalog } from '../catalog';
import { toolDeps } from '../deps';
import { BACKEND_UNAVAILABLE } from '../refusalText';
import { registerBoundedTaskResult } from '../sdk/boundedTaskResult';
import { answerToolCalls } from '../sdk/toolCall2025';
import { workflowUriTemplate } from '../workflowLink';
import { readWorkflowResource, workflowResourceMetadata } from '../workflowResource';
import { UI_EXTENSION } from '../uiExtension';
import { viewContents, viewListing } from '../workflowView';
import { DurableTaskStore } from './taskStore';
import { SERVER_INFO } from '../../appInfo';
import type { WorkflowDeps } from '../../workflow/workflowDeps';

/**
 * The 2025-era server (SDK 1.32's low-level Server, MCP Tasks of 2025-11-25). The SDK's stateless transport
 * takes one server per request, so the server is built per request, but everything in it that does not depend
 * on the request (the tool list with its JSON Schemas, the resource templates) is built once per configuration.
 * It holds nothing another request (or another instance) would need: the task store is a view of the caller's
 * workflows. McpServer is not used: the app answers tools/call itself (../sdk/toolCall2025.ts), so McpServer
 * would add only a per-request conversion of every schema on tools/list and a listChanged it cannot keep.
 */

/** One JSON Schema validator for every server: by default each Server builds its own Ajv instance. */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * What the server offers. tasks/list only to a caller that can be told apart from others (the 2025-11-25 spec:
 * a receiver that cannot identify requestors should not declare it). No listChanged, no resource listing or
 * subscriptions: a stateless server has no stream to push anything on. MCP Apps only to a client that declared it.
 */
function capabilities(identified: boolean, ui: boolean): ServerCapabilities {
    return {
        tools: {},
        resources: {},
        tasks: { ...(identified ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } },
        ...(ui ? { extensions: { [UI_EXTENSION]: {} } } : {}),
    };
}

interface Listings {
    tools: ListToolsResult;
    /** The same tools with each job's app-only view status tool, and their `_meta.ui` (MCP Apps, ../catalog.ts). */
    toolsWithViews: ListToolsResult;
    resourceTemplates: ListResourceTemplatesResult;
    templates: ReadonlyArray<{ template: UriTemplate; job: Catalog['jobs'][number] }>;
}

const listings = new WeakMap<Catalog, Listings>();

/** tools/list and resources/templates/list as McpServer 1.32 would list them (its own converter), built once. */
function listingsOf(catalog: Catalog): Listings {
    let found = listings.get(catalog);
    if (found === undefined) {
        const listed = new Map(
            catalog.tools.map((served) => {
                const { definition, starts } = served;
                const tool = {
                    name: definition.name,
                    title: definition.title,
                    description: definition.description,
                    inputSchema: toJsonSchemaCompat(definition.inputSchema, { strictUnions: true, pipeStrategy: 'input' }),
                    annotations: definition.annotations,
                    execution: { taskSupport: starts ? ('optional' as const) : ('forbidden' as const) },
                    outputSchema: toJsonSchemaCompat(definition.outputSchema, { strictUnions: true, pipeStrategy: 'output' }),
                };
                const meta = uiToolMeta(served);
                return [served, { tool, withView: meta === undefined ? tool : { ...tool, _meta: meta } }] as const;
            })
        );
        const tools = offeredTools(catalog, false).map((served) => listed.get(served)!.tool);
        const toolsWithViews = offeredTools(catalog, true).map((served) => listed.get(served)!.withView);
        const resourceTemplates = catalog.jobs.map((job) => ({ name: job.resource.name, uriTemplate: workflowUriTemplate(job), ...workflowResourceMetadata(job) }));
        const templates = catalog.jobs.map((job) => ({ template: new UriTemplate(workflowUriTemplate(job)), job }));
        found = { tools: { tools } as ListToolsResult, toolsWithViews: { tools: toolsWithViews } as ListToolsResult, resourceTemplates: { resourceTemplates }, templates };
        listings.set(catalog, found);
    }
    return found;
}

/** As McpServer answers a URI that no resource matches: another tenant's workflow looks exactly like an unknown one. */
const RESOURCE_ERRORS = {
    notFound: (uri: URL) => new McpError(ErrorCode.InvalidParams, `Resource ${uri.href} not found`),
    unavailable: () => new McpError(ErrorCode.InternalError, BACKEND_UNAVAILABLE),
};

/**
 * A 2025-era server for one request: each served job's three tools and workflow resource, and MCP Tasks; and to a
 * client that declared MCP Apps (`ui`, ../sdk/uiSession2025.ts), each job's view.
 */
export function buildMcpServer(workflowDeps: WorkflowDeps, ui = false): Server {
    const catalog = catalogFor(workflowDeps.config);
    const listed = listingsOf(catalog);
    const deps = toolDeps(workflowDeps);
    const taskStore = new DurableTaskStore(deps);
    const server = new Server(SERVER_INFO, {
        capabilities: capabilities(workflowDeps.tenant.identified, ui),
        instructions: catalog.instructions,
        jsonSchemaValidator,
        taskStore,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => (ui ? listed.toolsWithViews : listed.tools));
    answerToolCalls(server, catalog, deps, ui);
    // Each job's `{scheme}://workflows/{workflow_id}` (../workflowResource.ts), reached through the resource_link in
    // tool answers; resources/list holds no workflow, for listing would need a caller that can be told apart from
    // others. It lists the views (the same for every caller) to a client that declared MCP Apps.
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: ui ? catalog.views.map(viewListing) : [] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listed.resourceTemplates);
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
        const uri = new URL(request.params.uri);
        const view = ui ? catalog.views.find((served) => served.uri === request.params.uri) : undefined;
        if (view !== undefined) return viewContents(view);
        for (const { template, job } of listed.templates) {
            const variables = template.match(uri.toString());
            if (variables) return readWorkflowResource(job, deps, uri, variables.workflow_id, RESOURCE_ERRORS);
        }
        throw RESOURCE_ERRORS.notFound(uri);
    });
    registerBoundedTaskResult(server, deps, taskStore);
    return server;
}
