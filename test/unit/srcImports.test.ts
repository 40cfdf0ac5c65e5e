import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { compiledGraph, cycles, repoRoot, sourceGraph } from '@mcp-mining/testkit';

const SRC = join(repoRoot, 'src');

/**
 * src/ (the function app) has no import circles; its two MCP eras are siblings over a shared core, neither
 * importing the other; it never imports the local host; and the MCP and workflow layers know a job only by its
 * definition (src/jobs/job.ts and the registry), never by one job's folder.
 */

describe('src imports', () => {
    it('the compiled modules import one another without a circle', () => {
        const graph = compiledGraph(SRC, join(repoRoot, 'dist', 'src'));
        assert.ok(graph.size > 50, `read ${graph.size} compiled modules of src/`);
        assert.ok(graph.get('functions/mcp')?.length, 'the walk sees functions/mcp import something');
        assert.deepEqual(cycles(graph), []);
    });

    it('the sources, type imports included, have no circle either', () => {
        assert.deepEqual(cycles(sourceGraph(SRC)), []);
    });

    it('the 2025 and 2026 eras import nothing of each other', () => {
        const graph = sourceGraph(SRC);
        const crossings = [...graph].flatMap(([name, imports]) =>
            imports
                .filter(
                    (to) =>
                        (name.startsWith('mcp/era2025/') && to.startsWith('mcp/era2026/')) ||
                        (name.startsWith('mcp/era2026/') && to.startsWith('mcp/era2025/'))
                )
                .map((to) => `${name} -> ${to}`)
        );
        assert.deepEqual(crossings, []);
    });

    it('nothing in src/ imports the local host, and mcp/ and workflow/ import no job folder', () => {
        const graph = sourceGraph(SRC);
        const intoJobs = [...graph].filter(([name, imports]) => name.startsWith('mcp/') && imports.some((to) => to.startsWith('jobs/')));
        assert.ok(intoJobs.length > 0, 'the walk sees mcp/ import the job layer');
        const offending = [...graph].flatMap(([name, imports]) =>
            imports
                .filter(
                    (to) =>
                        to.startsWith('../') ||
                        ((name.startsWith('mcp/') || name.startsWith('workflow/')) && /^jobs\/[^/]+\//.test(to))
                )
                .map((to) => `${name} -> ${to}`)
        );
        assert.deepEqual(offending, []);
    });
});
