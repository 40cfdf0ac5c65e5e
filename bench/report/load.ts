import type { LoadFigures, ToolName } from '../figures/load';
import { max, percentile } from '../stats';
import { fmt, met, ms, result } from './format';

/** The "Load" section. */
export function renderLoad(f: LoadFigures): string {
    const { settings: opts, latencies } = f;
    // With no call of a tool (every start answered inline: no poll) its latencies are not measured, and say why.
    const none = (name: ToolName) =>
        name === 'get_mining_result' ? 'not measured: no poll in this run (every start answered `completed` within the budget)' : 'not measured: no call';
    const row = (name: ToolName) => {
        const list = latencies[name];
        return list.length === 0
            ? `| \`${name}\` | 0 | ${none(name)} | | |`
            : `| \`${name}\` | ${list.length} | ${ms(percentile(list, 50))} | ${ms(percentile(list, 99))} | ${ms(max(list))} |`;
    };
    const polls = latencies.get_mining_result;
    const ok = f.lost.length === 0 && f.errors.length === 0;
    const lines = [
        '## Load',
        '',
        `${opts.clients} MCP SDK clients at once against the app on the local host with Azurite (loopback): each ` +
            `starts one run (difficulty ${opts.difficulty}, 2 to 4 blocks) with \`start_mining\` ` +
            `(\`WAIT_BUDGET_SECONDS=${opts.waitBudgetSeconds}\`; ${f.startedRunning} of ${opts.clients} answered \`running\`), ` +
            'then polls `get_mining_result` every ' +
            `${opts.pollIntervalMs} ms until the run ends, and re-checks the chain. A run is lost if it does not end ` +
            '`completed` with a chain that checks out; an error is any tool error, protocol error or failed request.',
        '',
        `Machine: ${f.machine.vcpus} cores (${f.machine.cpuModel}), Node ${f.machine.node}, ` +
            `load average ${fmt(f.loadBefore, 1)} before and ${fmt(f.loadAfter, 1)} after.`,
        '',
        '| runs started | completed | lost | errors | total time |',
        '|---:|---:|---:|---:|---:|',
        `| ${opts.clients} | ${f.completed} | **${f.lost.length}** | **${f.errors.length}** | ${fmt(f.totalMs / 1000, 1)} s |`,
        '',
        '| tool | calls | p50 | p99 | max |',
        '|---|---:|---:|---:|---:|',
        row('start_mining'),
        row('get_mining_result'),
        '',
        '`start_mining` latency includes its wait: a call that outlasts the budget answers `running` after about ' +
            `${opts.waitBudgetSeconds} s by design. \`get_mining_result\` is one status read.`,
        '',
        result(
            `${opts.clients} clients, **${f.lost.length} runs lost, ${f.errors.length} errors** ` +
                `(target 0 and 0: ${met(ok)}); ` +
                (polls.length === 0
                    ? `\`get_mining_result\` ${none('get_mining_result')}.`
                    : `\`get_mining_result\` p50 ${ms(percentile(polls, 50))}, p99 ${ms(percentile(polls, 99))}.`)
        ),
    ];
    if (!ok) lines.push('', 'First problems:', '', ...[...f.errors, ...f.lost].slice(0, 5).map((line) => `- ${line}`));
    return lines.join('\n') + '\n';
}
