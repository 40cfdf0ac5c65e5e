import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { ResultView } from '../../jobs/resultView';
import type { ToolAnswer } from '../viewModel';
import type { ViewSpec } from '../contract';
import { RunWatch } from '../watch';
import { createScreen } from './draw';

/**
 * A job's view in the host's frame (MCP Apps): connects to the host with the extension's App (its postMessage
 * transport to the parent window), shows the tool result it is given, and follows the run through the host's server
 * tool calls (../watch.ts). scripts/build-views.mjs calls this with the job's spec and renderer, once per job.
 */
export function mountWorkflowView(spec: ViewSpec, renderer: ResultView | undefined, css: string): void {
    let watch: RunWatch | undefined;
    const root = ownRoot(css);
    const screen = createScreen(root, spec, () => void watch?.cancel());
    // Inline only: the view lays itself out in the chat's width and has no larger layout to offer (SEP-1865, Display Modes).
    const app = new App({ name: `${spec.job}-workflow-view`, version: '1.0.0' }, { availableDisplayModes: ['inline'] }, { autoResize: true });
    watch = new RunWatch(spec, renderer, {
        callTool: async (name, args) => (await app.callServerTool({ name, arguments: args })) as ToolAnswer,
        show: (model, receivedAtMs) => screen.show(model, receivedAtMs),
        note: (text) => screen.note(text),
        now: () => Date.now(),
        setTimer: (run, ms) => setTimeout(run, ms),
        clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
    });
    const applyContext = (context: McpUiHostContext | undefined) => {
        if (context?.theme !== undefined) applyDocumentTheme(context.theme);
        if (context?.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables);
        if (context?.styles?.css?.fonts !== undefined) applyHostFonts(context.styles.css.fonts);
        if (context?.safeAreaInsets !== undefined) {
            const { top, right, bottom, left } = context.safeAreaInsets;
            root.style.padding = `${top}px ${right}px ${bottom}px ${left}px`;
        }
        const dimensions = context?.containerDimensions;
        if (dimensions !== undefined && 'maxWidth' in dimensions && dimensions.maxWidth !== undefined) root.style.maxWidth = `${dimensions.maxWidth}px`;
    };
    // Handlers first: the host may send the tool's input and result as soon as the handshake ends.
    app.ontoolinput = () => screen.waiting();
    app.ontoolresult = (result) => watch?.accept(result as ToolAnswer);
    app.ontoolcancelled = ({ reason }) => screen.note(`The tool call was cancelled${reason === undefined ? '' : `: ${reason}`}.`);
    app.onhostcontextchanged = applyContext;
    app.onteardown = () => {
        watch?.stop();
        return {};
    };
    app.connect().then(
        () => applyContext(app.getHostContext()),
        (error: unknown) => screen.note(`Could not connect to the host (${error instanceof Error ? error.message : String(error)}).`)
    );
}

/**
 * The view's own element and stylesheet, both made here: a host may pass the document verbatim, wrap its markup in a
 * document of its own (the Inspector puts it inside its `<body>`), or move its head, so the view never replaces what
 * it did not create and attaches its styles from the script (inline style, which the spec's default CSP allows).
 */
function ownRoot(css: string): HTMLElement {
    const style = document.createElement('style');
    style.dataset.view = 'styles';
    style.textContent = css;
    (document.head ?? document.documentElement).append(style);
    const root = document.createElement('div');
    root.className = 'view-root';
    document.body.append(root);
    return root;
}
