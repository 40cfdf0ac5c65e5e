/** The figures bench/scaleOut.ts measures and bench/report/scaleOut.ts renders (why apart: bench/common.ts). */
import type { PinnedHostsFigures } from '../pinnedHosts';
import type { RangeCostFigures } from '../rangeCost';
import type { ScaleModelFigures } from '../scaleModelFigures';

export interface ScaleOutFigures {
    loadBefore: number;
    loadAfter: number;
    /** Why the extension did not run (no extension rows, no pinned hosts), or false. */
    extensionSkipped: string | false;
    rangeCost: RangeCostFigures;
    /** Undefined when the extension did not run, or with --smoke. */
    pinned: PinnedHostsFigures | undefined;
    model: ScaleModelFigures;
}
