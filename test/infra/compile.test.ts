/**
 * The real Bicep compiler (pinned in infra/tools/bicep/bicep-cli.csproj) compiles and lints
 * infra/main.bicep and its modules with no error and no warning, under the rules of infra/bicepconfig.json.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { getPathInsensitive, isRecord, readJson, readRepoFile } from './files';
import { bicepBinary, bicepSkip, compile, lint, MAIN_BICEP, problems } from './template';

const PROJECT = 'infra/tools/bicep/bicep-cli.csproj';

describe('Bicep compiler', { skip: bicepSkip }, () => {
    it('is the version the project pins', () => {
        const pinned = /<BicepVersion>\s*([^<\s]+)\s*<\/BicepVersion>/.exec(readRepoFile(PROJECT))?.[1];
        assert.ok(pinned, `${PROJECT} has no <BicepVersion>`);
        const result = spawnSync(bicepBinary(), ['--version'], { encoding: 'utf8' });
        assert.equal(result.status, 0, `bicep --version failed: ${result.stderr}`);
        assert.match(result.stdout, new RegExp(`\\b${pinned.replace(/\./g, '\\.')}\\b`), `bicep --version says ${result.stdout.trim()}, ${PROJECT} pins ${pinned}`);
    });

    it(`builds ${MAIN_BICEP} with no error and no warning`, () => {
        const build = compile();
        assert.deepEqual(problems(build.diagnostics), [], `bicep build ${MAIN_BICEP} reported problems`);
        assert.equal(build.status, 0, `bicep build ${MAIN_BICEP} exited with ${String(build.status)}`);
        assert.ok(build.template, 'bicep build wrote no template');
    });

    it(`lints ${MAIN_BICEP} and its modules with no error and no warning`, () => {
        const result = lint();
        assert.deepEqual(problems(result.diagnostics), [], `bicep lint ${MAIN_BICEP} reported problems`);
        assert.equal(result.status, 0, `bicep lint ${MAIN_BICEP} exited with ${String(result.status)}`);
    });
});

describe('infra/bicepconfig.json', () => {
    it('says why, in a comment, for each rule it turns off', () => {
        const lines = readRepoFile('infra/bicepconfig.json').split(/\r?\n/);
        const isOff = (line: string): boolean => /^\s*"[a-z0-9-]+":\s*\{\s*"level":\s*"off"\s*\}/.test(line);
        const unexplained: string[] = [];
        lines.forEach((line, index) => {
            if (!isOff(line)) return;
            let above = index - 1;
            while (above >= 0 && isOff(lines[above] ?? '')) above--;
            if (!/^\s*\/\//.test(lines[above] ?? '')) unexplained.push(line.trim());
        });
        assert.deepEqual(unexplained, [], 'infra/bicepconfig.json turns these rules off without a comment saying why');
        // Every rule that is off must be written on one line as above, so the check sees it.
        const rules = getPathInsensitive(readJson('infra/bicepconfig.json'), ['analyzers', 'core', 'rules']);
        assert.ok(isRecord(rules), 'infra/bicepconfig.json has no analyzers.core.rules');
        const off = Object.entries(rules).filter(([, rule]) => getPathInsensitive(rule, ['level']) === 'off').map(([name]) => name);
        const seen = lines.filter(isOff).map((line) => /"([a-z0-9-]+)"/.exec(line)?.[1]);
        assert.deepEqual(off.sort(), seen.sort(), 'write each rule that is off on one line: { "level": "off" }');
    });
});

describe('.gitignore', () => {
    it('keeps the restored compiler and any dotnet output out of git', () => {
        const lines = readRepoFile('.gitignore').split(/\r?\n/).map((l) => l.trim());
        for (const pattern of ['infra/tools/bicep/packages/', 'bin/', 'obj/']) {
            assert.ok(lines.includes(pattern), `.gitignore should list ${pattern}`);
        }
    });
});
