import { duration, grouped, type Cell, type ResultSection, type ResultView } from '../resultView';
import type { Block, MiningResult } from './contracts';
import { sha256 } from './sha256';

/**
 * The mining view's completed result (src/jobs/resultView.ts): the chain as a table of index, nonce and hash, each
 * hash's leading zero bits marked and counted, and each block re-checked against the hashing rule (docs/contract.md)
 * right in the view, so the person reading it need not take the server's word. Plain code: it runs in the browser.
 */

const GENESIS = 'GENESIS';

/** How many zero bits a lowercase hex digest starts with. */
export function zeroBitsOfHex(hex: string): number {
    let bits = 0;
    for (const digit of hex) {
        const nibble = Number.parseInt(digit, 16);
        if (Number.isNaN(nibble)) return bits;
        if (nibble !== 0) return bits + Math.clz32(nibble) - 28;
        bits += 4;
    }
    return bits;
}

function hex(bytes: Uint8Array): string {
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** What is wrong with block `i` of the chain by the hashing rule, or undefined when it holds. */
export function blockProblem(block: Block, previous: Block | undefined, difficulty: number): string | undefined {
    const expectedPrevious = previous === undefined ? GENESIS : previous.hash;
    if (block.previous_hash !== expectedPrevious) return 'previous_hash is not the hash of the block before';
    const digest = hex(sha256(new TextEncoder().encode(`${block.index}:${block.previous_hash}:${block.nonce}`)));
    if (digest !== block.hash) return 'hash is not SHA-256 of "{index}:{previous_hash}:{nonce}"';
    if (zeroBitsOfHex(digest) < difficulty) return `hash has fewer than ${difficulty} leading zero bits`;
    return undefined;
}

function isChain(result: Record<string, unknown>): result is MiningResult {
    return typeof result.difficulty === 'number' && Array.isArray(result.blocks);
}

function blockRow(block: Block, previous: Block | undefined, difficulty: number): Cell[] {
    const bits = zeroBitsOfHex(block.hash);
    const problem = blockProblem(block, previous, difficulty);
    return [
        String(block.index),
        grouped(block.nonce),
        // The zero hex digits are marked; the bits of a partly zero digit are counted in the next column.
        { text: block.hash, marked: Math.floor(bits / 4), title: `${bits} leading zero bits` },
        String(bits),
        problem === undefined ? { text: '✓', ok: true, title: 'recomputed here: the hash and the chain hold' } : { text: '✗', ok: false, title: problem },
    ];
}

export const resultView: ResultView = {
    job: 'mining',
    render(result): ResultSection[] {
        if (!isChain(result)) return [];
        const { difficulty, blocks } = result;
        const facts: ResultSection = {
            kind: 'facts',
            facts: [
                { label: 'Blocks', value: grouped(blocks.length) },
                { label: 'Difficulty', value: `${difficulty} leading zero bits`, title: 'Each block hash starts with at least this many zero bits.' },
                { label: 'Attempts', value: grouped(result.total_attempts), title: 'Hashes tried: the sum of nonce + 1 over the blocks.' },
                { label: 'Mining time', value: duration(result.elapsed_ms) },
            ],
        };
        const rows = blocks.map((block, i) => blockRow(block, blocks[i - 1], difficulty));
        return [facts, { kind: 'table', caption: 'The chain', columns: ['index', 'nonce', 'hash', 'zero bits', 'checked'], rows }];
    },
};
