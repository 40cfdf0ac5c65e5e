import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * A replay-safety check for Durable orchestrators, with the TypeScript compiler API. An orchestrator is
 * replayed from its history many times, so it must decide the same way every time: no wall clock, no
 * randomness, no timers and no I/O of its own; only what the Durable context gives it
 * (`context.df.currentUtcDateTime`, activities, durable timers).
 *
 * Starting from each `df.app.orchestration(name, handler)` registration, the check follows every
 * identifier the handler uses to its declaration, through the project's own sources (not libraries:
 * zod and durable-functions are trusted), and reports each use of a hazard. It follows code, not
 * imports: a module that imports node:crypto for a function the orchestrator never calls is fine.
 * A registration's handler may be a factory call, `orchestration(name, makeHandler(config))`: the
 * factory's body is checked, but not its arguments, which run once when the app loads.
 */

export interface Hazard {
    /** Relative to the root given to findReplayHazards, with forward slashes. */
    file: string;
    line: number;
    /** The code as written, e.g. `Date.now`. */
    text: string;
    reason: string;
}

/** Globals that read the clock, draw randomness, schedule work or do I/O. */
const HAZARDOUS_GLOBALS: Record<string, string> = {
    Date: 'the wall clock: use context.df.currentUtcDateTime',
    setTimeout: 'a timer outside the Durable context: use context.df.createTimer',
    setInterval: 'a timer outside the Durable context: use context.df.createTimer',
    setImmediate: 'scheduling outside the Durable context',
    queueMicrotask: 'scheduling outside the Durable context',
    performance: 'a clock',
    process: 'process state (environment, clock): pass it in as orchestration input',
    fetch: 'I/O: call an activity',
    require: 'loading code at replay time',
    console: 'I/O that repeats on every replay: use context.log, checked against context.df.isReplaying',
    WeakRef: 'garbage-collector timing',
    FinalizationRegistry: 'garbage-collector timing',
};

/** Node.js modules whose every export is I/O, a clock, randomness or scheduling. */
const HAZARDOUS_MODULES = new Set([
    'fs',
    'fs/promises',
    'net',
    'http',
    'https',
    'http2',
    'dgram',
    'dns',
    'dns/promises',
    'tls',
    'child_process',
    'cluster',
    'worker_threads',
    'crypto',
    'os',
    'process',
    'timers',
    'timers/promises',
    'perf_hooks',
    'readline',
    'inspector',
    'vm',
]);

/**
 * A program over `files` (and what they import) with the project's tsconfig.json options. Building one
 * takes a second or two; several checks may share it.
 */
export function replayProgram(root: string, files: readonly string[]): ts.Program {
    const config = ts.getParsedCommandLineOfConfigFile(join(resolve(root), 'tsconfig.json'), {}, {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
            throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
    });
    if (!config) throw new Error('tsconfig.json could not be read');
    return ts.createProgram(files.map((f) => resolve(root, f)), { ...config.options, noEmit: true });
}

export function findReplayHazards(options: {
    root: string;
    entryFiles: readonly string[];
    sourceDirs: readonly string[];
    /** A program that holds the entry files; one is built for them otherwise. */
    program?: ts.Program;
}): {
    hazards: Hazard[];
    orchestrations: string[];
    /** The project's files whose code the check followed, relative to root, sorted: what it covered. */
    files: string[];
} {
    const root = resolve(options.root);
    const program = options.program ?? replayProgram(root, options.entryFiles);
    const checker = program.getTypeChecker();
    const sourceDirs = options.sourceDirs.map((d) => resolve(root, d) + sep);
    const isOwnSource = (file: ts.SourceFile) =>
        !file.isDeclarationFile && sourceDirs.some((d) => resolve(file.fileName).startsWith(d)) && !file.fileName.includes('node_modules');

    const hazards: Hazard[] = [];
    const orchestrations: string[] = [];
    const visited = new Set<ts.Node>();
    const queue: ts.Node[] = [];

    const reported = new Set<string>();
    const report = (node: ts.Node, reason: string) => {
        const file = node.getSourceFile();
        // A local declaration reached again from its uses is scanned twice: report each place once.
        const key = `${file.fileName}:${node.getStart()}`;
        if (reported.has(key)) return;
        reported.add(key);
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        hazards.push({ file: relative(root, file.fileName).split(sep).join('/'), line: line + 1, text: node.getText(), reason });
    };
    const enqueue = (node: ts.Node) => {
        if (!visited.has(node)) {
            visited.add(node);
            queue.push(node);
        }
    };

    /** Why a declaration outside the project is a hazard, or undefined when it is not. */
    const hazardOf = (declaration: ts.Declaration, name: string): string | undefined => {
        const file = declaration.getSourceFile();
        const inNodeTypes = file.fileName.includes('/node_modules/@types/node/');
        if (!inNodeTypes && !program.isSourceFileDefaultLibrary(file)) return undefined;
        const module = enclosingModule(declaration);
        if (module !== undefined && HAZARDOUS_MODULES.has(module.replace(/^node:/, ''))) return `Node.js '${module}': I/O, clock or randomness`;
        return HAZARDOUS_GLOBALS[name];
    };

    const visit = (node: ts.Node): void => {
        // Types never run; imports are followed through the identifiers that use them.
        if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
        if (ts.isPropertyAccessExpression(node) && node.expression.getText() === 'Math' && node.name.text === 'random') {
            report(node, 'randomness: pass random values in as input, or use context.df.newGuid');
        }
        if (ts.isIdentifier(node)) follow(node);
        ts.forEachChild(node, visit);
    };

    const follow = (identifier: ts.Identifier) => {
        let symbol = checker.getSymbolAtLocation(identifier);
        if (!symbol) return;
        if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        const parent = identifier.parent;
        // `x.y`: the hazard is judged on `x` (a global, a Node.js module), and reported as `x.y`.
        const isPropertyName = ts.isPropertyAccessExpression(parent) && parent.name === identifier;
        // `new Date(value)` makes a date from a value (the Durable clock plus a delay, say); only `new Date()` reads the clock.
        if (symbol.name === 'Date' && ts.isNewExpression(parent) && parent.expression === identifier && (parent.arguments?.length ?? 0) > 0) {
            return;
        }
        for (const declaration of symbol.declarations ?? []) {
            const reason = isPropertyName ? undefined : hazardOf(declaration, symbol.name);
            if (reason) {
                report(ts.isPropertyAccessExpression(parent) && parent.expression === identifier ? parent : identifier, reason);
                return;
            }
            if (isOwnSource(declaration.getSourceFile())) enqueue(declaration);
        }
    };

    /** A declaration reached from an orchestrator: what of it runs. */
    const covered = new Set<string>();
    const scan = (node: ts.Node) => {
        covered.add(relative(root, node.getSourceFile().fileName).split(sep).join('/'));
        if (ts.isVariableDeclaration(node)) {
            if (node.initializer) visit(node.initializer);
        } else if (ts.isParameter(node) || ts.isImportSpecifier(node) || ts.isImportClause(node) || ts.isNamespaceImport(node)) {
            // A parameter's value comes from the caller; imports resolve to their target above.
        } else {
            visit(node);
        }
    };

    // The registrations: df.app.orchestration(name, handler) in the entry files.
    for (const entry of options.entryFiles) {
        const file = program.getSourceFile(resolve(root, entry));
        if (!file) throw new Error(`${entry} is not part of the program`);
        const find = (node: ts.Node): void => {
            if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'orchestration') {
                const [name, handler] = node.arguments;
                orchestrations.push(name?.getText() ?? '?');
                if (handler && ts.isCallExpression(handler)) {
                    // A factory: its body builds the handler; its arguments run once, at load.
                    const symbol = checker.getSymbolAtLocation(handler.expression);
                    const target = symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
                    for (const declaration of target?.declarations ?? []) enqueue(declaration);
                } else if (handler) {
                    enqueue(handler);
                }
            }
            ts.forEachChild(node, find);
        };
        find(file);
    }
    while (queue.length > 0) scan(queue.shift() as ts.Node);
    return { hazards, orchestrations, files: [...covered].sort() };
}

/** The `declare module "x"` a declaration sits in (Node's typings declare each built-in module so). */
function enclosingModule(node: ts.Node): string | undefined {
    for (let current: ts.Node | undefined = node; current; current = current.parent) {
        if (ts.isModuleDeclaration(current) && ts.isStringLiteral(current.name)) return current.name.text;
    }
    return undefined;
}
