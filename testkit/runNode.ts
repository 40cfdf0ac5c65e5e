import { spawn } from 'node:child_process';

/** How a Node script run to its end went. */
export interface NodeRun {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** Runs `node <args>` to its end, as a user would from a terminal, and gives back its exit code and output. */
export function runNode(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<NodeRun> {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [...args], { cwd: options.cwd, env: { ...process.env, ...options.env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
}
