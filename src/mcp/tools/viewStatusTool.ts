import { getResultTool } from './getResultTool';
import type { ToolDefinition } from './toolDefinition';
import type { WorkflowIdInput } from './workflowIdInput';
import type { JobDefinition } from '../../jobs/job';
import { viewStatusToolName } from '../../views/contract';
import { capitalized } from '../workflowView';

/**
 * A job's app-only status tool (MCP Apps `_meta.ui.visibility: ["app"]`): what the job's view polls. It answers as the
 * job's get tool does, with the same tenant checks (another tenant's workflow is not_found), and always with the run
 * facts the view reads. Only a client that declared MCP Apps is offered it, and its hosts keep it from the model
 * ("Host MUST NOT include tools in the agent's tool list when their visibility does not include model", SEP-1865), so
 * the view's polls are not the model's and the model's polls add no view (docs/client-authors.md, "One view per run").
 */
export function viewStatusTool(job: JobDefinition): ToolDefinition<WorkflowIdInput> {
    const get = getResultTool(job);
    const title = `${capitalized(job.noun)} view status`;
    return {
        ...get,
        name: viewStatusToolName(job.name),
        title,
        description: `For the ${job.noun} view only: the status of one workflow, as ${job.tools.get.name} answers it, with the run facts the view draws. Models call ${job.tools.get.name}.`,
        annotations: { ...get.annotations, title },
        call: (args, deps, call) => get.call(args, deps, { ...call, forView: true }),
    };
}
