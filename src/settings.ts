/**
 * The app's settings as the code reads them, once parsed and checked (./config.ts reads and checks them). A leaf, so
 * that the jobs, which read settings, and the configuration, which checks ENABLED_JOBS against the jobs' registry, do
 * not import each other.
 */

export interface Config {
    /** How long start_mining waits inline before it answers with a workflow id. */
    waitBudgetSeconds: number;
    /** The hint given to clients in a `running` status. */
    pollAfterSeconds: number;
    defaultDifficulty: number;
    maxDifficulty: number;
    chainLength: number;
    maxBlocks: number;
    taskHubName: string;
    /** Longest status JSON a tool answers with; a longer result is cut to fit and marked truncated. */
    maxResultChars: number;
    /** Most workflows one tenant may have running at once (counted in the durable backend). */
    maxActiveWorkflows: number;
    /** Most workflows all tenants together may have running at once (counted in the durable backend). */
    maxActiveWorkflowsTotal: number;
    /** Most workflows one tenant may start in a minute (counted from creation times in the durable backend). */
    maxStartsPerMinute: number;
    /** Most expected attempts (blocks × 2^difficulty) one start_mining call may commit. */
    maxWork: number;
    /** Longest a workflow may run, in seconds: past it, it ends failed (reason time_limit); recorded in its input at start. */
    maxWorkflowSeconds: number;
    /** Origins (scheme://host[:port], lowercase) allowed to call /api/mcp from a browser, beyond the server's own. */
    allowedOrigins: readonly string[];
    /** The jobs whose tools are served (src/jobs/index.ts), mining alone by default. */
    enabledJobs: readonly string[];
    /**
     * Whether /api/mcp needs a function key: false only where App Service Authentication requires a sign-in on every
     * request (the Entra deployment), so that a valid token is enough; the app still requires the key unless the
     * platform says authentication is on (WEBSITE_AUTH_ENABLED).
     */
    functionKeyRequired: boolean;
    /** Most ranges (MineBlock calls, prime segments) one workflow keeps in flight; recorded in its input at start. */
    parallelRanges: number;
    /** Nonces per MineBlock call; recorded in the workflow's input at start. */
    rangeSize: number;
}
