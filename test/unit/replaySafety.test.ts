import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { JOBS } from '../../src/jobs';
import { findReplayHazards, replayProgram } from '@mcp-mining/testkit';

/**
 * Orchestrator code must be replay-safe: no clock, randomness, timers or I/O outside the Durable context.
 * The check follows the code each registered orchestrator runs through the app's sources (see
 * testkit/replaySafety.ts); a planted bad example proves that it catches what it should.
 */

const root = resolve(__dirname, '..', '..', '..');
/** Every job's folder: the folders of src/jobs that register functions (offThread/ is shared code, not a job). */
const JOB_FOLDERS = readdirSync(resolve(root, 'src', 'jobs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(resolve(root, 'src', 'jobs', entry.name, 'functions.ts')))
    .map((entry) => entry.name);
/** Every registration file of the app, so an orchestrator added in src/functions or in a job's functions.ts is checked too. */
const APP_ENTRIES = [
    ...readdirSync(resolve(root, 'src', 'functions'))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => `src/functions/${name}`),
    ...JOB_FOLDERS.map((folder) => `src/jobs/${folder}/functions.ts`),
];
const BAD = 'test/fixtures/replay-hazards/badOrchestrator.ts';
const GOOD = 'test/fixtures/replay-hazards/goodOrchestrator.ts';
/** One program for every check here: building it is most of the time. */
const program = replayProgram(root, [...APP_ENTRIES, BAD, GOOD]);

describe('replay safety of orchestrator code', () => {
    it('the app\'s orchestrators use nothing but the Durable context', () => {
        const { hazards, orchestrations, files } = findReplayHazards({ root, entryFiles: APP_ENTRIES, sourceDirs: ['src'], program });
        // One job folder a registered job (src/jobs/index.ts), each with at least its orchestrator.
        assert.equal(JOB_FOLDERS.length, JOBS.length, `job folders ${JOB_FOLDERS.join(', ')} for ${JOBS.length} registered jobs`);
        assert.ok(orchestrations.length >= JOBS.length, `orchestrations found: ${[...orchestrations].join(', ')}`);
        // Ranges in flight run in the shared window: the check must have followed it, and into every job's folder.
        assert.ok(files.includes('src/jobs/rangeWindow.ts'), `the check did not follow src/jobs/rangeWindow.ts: ${files.join(', ')}`);
        for (const folder of JOB_FOLDERS) {
            assert.ok(files.some((file) => file.startsWith(`src/jobs/${folder}/`) && file !== `src/jobs/${folder}/functions.ts`), `the check followed nothing of src/jobs/${folder}/`);
        }
        assert.deepEqual(hazards, [], hazards.map((h) => `${h.file}:${h.line} ${h.text}: ${h.reason}`).join('\n'));
    });

    it('catches every hazard in a planted bad example, including one a module away', () => {
        const { hazards } = findReplayHazards({
            root,
            entryFiles: [BAD],
            sourceDirs: ['test/fixtures/replay-hazards'],
            program,
        });
        const found = hazards.map((h) => `${h.file.replace('test/fixtures/replay-hazards/', '')}:${h.line} ${h.text}`).sort();
        assert.deepEqual(found, [
            'badOrchestrator.ts:11 Date.now',
            'badOrchestrator.ts:12 Date',
            'badOrchestrator.ts:13 Math.random',
            'badOrchestrator.ts:14 process.env',
            'badOrchestrator.ts:15 setTimeout',
            'badOrchestrator.ts:16 readFileSync',
            'badOrchestrator.ts:17 crypto.randomUUID',
            'badOrchestrator.ts:18 fetch',
            'clockHelper.ts:3 performance.now',
        ].sort());
        for (const hazard of hazards) assert.ok(hazard.reason.length > 0);
    });

    it('passes a replay-safe example: the Durable clock, Date as a type, a factory, a helper module importing crypto', () => {
        const { hazards, orchestrations } = findReplayHazards({
            root,
            entryFiles: [GOOD],
            sourceDirs: ['test/fixtures/replay-hazards'],
            program,
        });
        assert.deepEqual(orchestrations, ["'GoodOrchestrator'"]);
        assert.deepEqual(hazards, [], hazards.map((h) => `${h.file}:${h.line} ${h.text}`).join('\n'));
    });
});
