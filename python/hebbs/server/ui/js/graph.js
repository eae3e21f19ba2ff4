/**
 * A memory's edges as a graph (SVG): the memory in the middle, its neighbours around it, each
 * edge labelled with its type (caused_by, followed_by, revised_from, insight_from, related_to).
 * A click on a node expands it: its own neighbours join the graph. A node's edges come from a
 * causal recall seeded at it, one hop, both directions, with each neighbour's strongest
 * relationships (`graph_context`), which name the edge back to the seed and its direction.
 */
import { api } from './api.js';
import { byId, status } from './dom.js';
/** The drawing's size, and how far a node's neighbours are placed from it. */
const WIDTH = 900;
const HEIGHT = 520;
const RADIUS = 150;
/** A node's label shows this many characters of its content (the tooltip shows all). */
const LABEL_CHARS = 22;
/** Neighbours fetched per expansion, and relationships per neighbour. */
export const EXPAND_TOP_K = 40;
export const EXPAND_GRAPH_CONTEXT = 20;
const nodes = new Map();
const edges = new Map();
let onSelect = () => undefined;
/** Wires the graph; a double click on a node opens its memory with `select`. */
export function setUpGraph(select) {
    onSelect = select;
}
/** Shows the graph around memory `id`, expanded one hop. */
export async function openGraph(id) {
    nodes.clear();
    edges.clear();
    const panel = byId('graph');
    panel.hidden = false;
    try {
        const memory = await api.get(id);
        nodes.set(id, {
            id,
            label: memory.content,
            kind: memory.kind,
            x: WIDTH / 2,
            y: HEIGHT / 2,
            expanded: false,
        });
        await expand(id);
        panel.scrollIntoView({ block: 'nearest' });
    }
    catch (error) {
        status(error.message, true);
    }
}
/** Adds the neighbours of node `id` and redraws. */
export async function expand(id) {
    const node = nodes.get(id);
    if (node === undefined)
        return;
    const output = await api.recall({
        strategies: [{ strategy: 'causal', seed_memory_id: id, max_depth: 1, direction: 'both' }],
        top_k: EXPAND_TOP_K,
        graph_context: EXPAND_GRAPH_CONTEXT,
        include_superseded: true,
    });
    const fresh = output.results.filter((result) => !nodes.has(result.memory.id));
    const start = Math.atan2(node.y - HEIGHT / 2, node.x - WIDTH / 2);
    fresh.forEach((result, index) => {
        const angle = start + ((index + 1) * 2 * Math.PI) / (fresh.length + 1) + (node.expanded ? 0 : Math.PI);
        nodes.set(result.memory.id, {
            id: result.memory.id,
            label: result.memory.content,
            kind: result.memory.kind,
            x: clamp(node.x + RADIUS * Math.cos(angle), 40, WIDTH - 40),
            y: clamp(node.y + RADIUS * Math.sin(angle), 30, HEIGHT - 30),
            expanded: false,
        });
    });
    for (const result of output.results) {
        for (const edge of result.expansion_context) {
            if (edge.neighbor_id !== id)
                continue;
            const [from, to] = edge.direction === 'outgoing' ? [result.memory.id, id] : [id, result.memory.id];
            edges.set(`${from}>${to}>${edge.edge_type}`, { from, to, type: edge.edge_type });
        }
    }
    node.expanded = true;
    draw();
    byId('graph-summary').textContent = `${nodes.size} memories, ${edges.size} edges`;
}
function clamp(value, low, high) {
    return Math.min(high, Math.max(low, value));
}
const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes) {
    const element = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) {
        element.setAttribute(name, String(value));
    }
    return element;
}
function draw() {
    const canvas = byId('graph-canvas');
    const drawing = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img' });
    const defs = svg('defs', {});
    const marker = svg('marker', {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 22,
        refY: 5,
        markerWidth: 6,
        markerHeight: 6,
        orient: 'auto-start-reverse',
    });
    marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }));
    defs.append(marker);
    drawing.append(defs);
    for (const edge of edges.values()) {
        const from = nodes.get(edge.from);
        const to = nodes.get(edge.to);
        if (from === undefined || to === undefined)
            continue;
        const line = svg('line', {
            x1: from.x,
            y1: from.y,
            x2: to.x,
            y2: to.y,
            class: `edge ${edge.type}`,
            'marker-end': 'url(#arrow)',
        });
        const label = svg('text', {
            x: (from.x + to.x) / 2,
            y: (from.y + to.y) / 2 - 4,
            class: 'edge-label',
        });
        label.textContent = edge.type;
        drawing.append(line, label);
    }
    for (const [index, node] of [...nodes.values()].entries()) {
        const group = svg('g', {
            class: `node ${node.kind}${node.expanded ? ' expanded' : ''}`,
            'data-id': node.id,
            tabindex: 0,
        });
        const circle = svg('circle', { cx: node.x, cy: node.y, r: 14 });
        const title = svg('title', {});
        title.textContent = node.label;
        const below = index % 2 === 0;
        const text = svg('text', { x: node.x, y: node.y + (below ? 30 : -22), class: 'node-label' });
        text.textContent =
            node.label.length > LABEL_CHARS ? `${node.label.slice(0, LABEL_CHARS - 1)}…` : node.label;
        group.append(circle, title, text);
        group.addEventListener('click', () => void expand(node.id).catch((error) => status(error.message, true)));
        group.addEventListener('dblclick', () => onSelect(node.id));
        drawing.append(group);
    }
    canvas.replaceChildren(drawing);
}
