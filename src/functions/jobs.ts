import { JOBS } from '../jobs';

// Every job's orchestrator and activities, enabled or not: a workflow started before its job was disabled runs to its end.
for (const job of JOBS) job.registerFunctions();
