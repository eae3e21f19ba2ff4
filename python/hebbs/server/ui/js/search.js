/**
 * The search panel: a cue, the default search or one strategy, an entity, a metadata filter
 * (JSON, docs/filters.md), and the four weights, whose sliders start at the engine's defaults
 * (the server sets them in the page) and re-run the recall with the new `scoring_weights` so the
 * server re-ranks live. Each result shows its composite score as four bars, one per weighted
 * signal, and each strategy's details; a click opens the memory. `#results` carries the number
 * of the search it shows (`data-searches`).
 */
import { api } from './api.js';
import { byId, el, status } from './dom.js';
import { breakdown, SIGNALS } from './score.js';
/** What the search offers: the server's default pipeline (no strategies named), then each
 * strategy as the server names it. */
export const DEFAULT_SEARCH = 'default';
export const STRATEGIES = [
    DEFAULT_SEARCH,
    'similarity',
    'hybrid',
    'keyword',
    'temporal',
    'causal',
    'analogical',
    'regex',
];
/** Results a search asks for. */
export const SEARCH_TOP_K = 20;
/** Milliseconds a slider waits for the next move before it re-runs the search. */
export const RERANK_DELAY_MS = 120;
const WEIGHT_NAMES = ['relevance', 'recency', 'importance', 'reinforcement'];
let open = () => undefined;
let timer;
let searches = 0;
/** Wires the panel; `onOpen` shows a memory. */
export function setUpSearch(onOpen) {
    open = onOpen;
    const select = byId('strategy');
    for (const name of STRATEGIES) {
        select.append(el('option', '', name));
    }
    byId('search-form').addEventListener('submit', (event) => {
        event.preventDefault();
        void search();
    });
    for (const name of WEIGHT_NAMES) {
        const slider = byId(`w-${name}`);
        showWeight(name);
        slider.addEventListener('input', () => {
            showWeight(name);
            clearTimeout(timer);
            timer = setTimeout(() => void search(), RERANK_DELAY_MS);
        });
    }
}
function showWeight(name) {
    byId(`w-${name}-value`).textContent = Number(byId(`w-${name}`).value).toFixed(2);
}
export function weights() {
    const value = (name) => Number(byId(`w-${name}`).value);
    return {
        w_relevance: value('relevance'),
        w_recency: value('recency'),
        w_importance: value('importance'),
        w_reinforcement: value('reinforcement'),
    };
}
/** Runs the search the panel describes and shows its results. The status line then says how
 * many, unless `keepStatus`: a refresh after a revise or forget leaves that action's status
 * (only a failure replaces it), whichever finishes first. */
export async function search(keepStatus = false) {
    const cue = byId('cue').value.trim();
    const strategy = byId('strategy').value;
    const entity = byId('entity').value.trim();
    const filter = byId('filter').value.trim();
    const body = {
        top_k: SEARCH_TOP_K,
        scoring_weights: weights(),
    };
    if (strategy !== DEFAULT_SEARCH)
        body['strategies'] = [strategy];
    if (cue !== '')
        body['cue'] = cue;
    if (entity !== '')
        body['entity_id'] = entity;
    const mine = ++searches;
    if (filter !== '') {
        try {
            body['filter'] = JSON.parse(filter);
        }
        catch (error) {
            status(`filter: not JSON (${error.message})`, true);
            byId('results').dataset['searches'] = String(mine);
            return;
        }
    }
    try {
        const output = await api.recall(body);
        if (mine !== searches)
            return;
        render(output.results, weights());
        byId('results').dataset['searches'] = String(mine);
        const errors = output.strategy_errors.map((error) => `${error.strategy}: ${error.message}`);
        if (errors.length > 0) {
            status(errors.join('; '), true);
        }
        else if (!keepStatus) {
            status(`${output.results.length} results`);
        }
    }
    catch (error) {
        if (mine === searches) {
            status(String(error.message), true);
            byId('results').dataset['searches'] = String(mine);
        }
    }
}
function render(results, used) {
    const list = byId('results');
    list.replaceChildren();
    for (const result of results) {
        const parts = breakdown(result, used);
        const bars = el('div', 'bars');
        for (const signal of SIGNALS) {
            const bar = el('div', `bar ${signal}`);
            bar.dataset['signal'] = signal;
            bar.style.width = `${Math.max(0, parts[signal]) * 100}%`;
            bar.title = `${signal} ${parts[signal].toFixed(3)}`;
            bars.append(el('div', 'signal', undefined, el('span', 'label', signal), bar, el('span', 'value', parts[signal].toFixed(3))));
        }
        const details = result.strategy_details.map((detail) => {
            const extra = Object.entries(detail)
                .filter(([key, value]) => key !== 'strategy' && value !== null)
                .map(([key, value]) => `${key} ${typeof value === 'number' ? +value.toFixed(4) : String(value)}`);
            return el('div', 'detail', `${detail.strategy}: ${extra.join(', ')}`);
        });
        const item = el('li', 'result', undefined, el('div', 'head', undefined, el('span', 'score', result.score.toFixed(3)), el('span', 'content', result.memory.content)), el('div', 'meta', `${result.memory.kind} · ${result.memory.entity_id ?? 'no entity'} · importance ${result.memory.importance.toFixed(2)}`), bars, ...details);
        item.dataset['id'] = result.memory.id;
        item.addEventListener('click', () => open(result.memory.id));
        list.append(item);
    }
}
