/** Bounds how many activities run at once, as maxConcurrentActivityFunctions does in the extension. */
export class Semaphore {
    #free: number;
    #waiting: (() => void)[] = [];

    constructor(slots: number) {
        this.#free = slots;
    }

    async acquire(): Promise<void> {
        if (this.#free > 0) {
            this.#free--;
            return;
        }
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }

    release(): void {
        const next = this.#waiting.shift();
        if (next) next();
        else this.#free++;
    }
}
