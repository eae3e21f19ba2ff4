/**
 * A memory's page: its content and fields (kind, entity, importance, access count, decay
 * score, times, context), its lineage, and revise and forget, each after a confirmation.
 */

import { api, type MemoryJson } from './api.js';
import { byId, confirmAction, el, status, time } from './dom.js';

let after: () => void = () => undefined;
let showGraph: (id: string) => void = () => undefined;

/** Wires the page; `onChange` runs after a revise or forget, `onGraph` opens the graph. */
export function setUpMemory(onChange: () => void, onGraph: (id: string) => void): void {
  after = onChange;
  showGraph = onGraph;
}

/** Shows memory `id`. */
export async function openMemory(id: string): Promise<void> {
  const panel = byId('memory');
  try {
    const [memory, lineage] = await Promise.all([api.get(id), api.lineage(id)]);
    panel.replaceChildren(...view(memory, lineage));
    panel.hidden = false;
    panel.scrollIntoView({ block: 'nearest' });
  } catch (error) {
    status((error as Error).message, true);
  }
}

function row(name: string, value: string): HTMLTableRowElement {
  return el('tr', '', undefined, el('th', '', name), el('td', '', value));
}

function view(memory: MemoryJson, lineage: readonly MemoryJson[]): Node[] {
  const fields = el(
    'table',
    'fields',
    undefined,
    row('id', memory.id),
    row('kind', memory.kind + (memory.superseded ? ' (superseded)' : '')),
    row('entity', memory.entity_id ?? '—'),
    row('importance', memory.importance.toFixed(3)),
    row('access count', String(memory.access_count)),
    row('decay score', memory.decay_score.toFixed(3)),
    row('created', time(memory.created_at)),
    row('last accessed', time(memory.last_accessed_at)),
    row('context', JSON.stringify(memory.context)),
  );
  fields.id = 'memory-fields';
  const chain = el('ol', 'lineage');
  chain.id = 'lineage';
  for (const version of lineage) {
    const item = el(
      'li',
      version.id === memory.id ? 'current' : '',
      `${time(version.created_at)} · ${version.kind} · ${version.content}`,
    );
    item.dataset['id'] = version.id;
    chain.append(item);
  }
  const text = el('textarea', '', memory.content);
  text.id = 'revise-text';
  const revise = el('button', '', 'Revise');
  revise.id = 'revise';
  revise.addEventListener('click', () => void reviseMemory(memory, text.value));
  const forget = el('button', 'danger', 'Forget');
  forget.id = 'forget';
  forget.addEventListener('click', () => void forgetMemory(memory));
  const graph = el('button', '', 'Graph');
  graph.id = 'show-graph';
  graph.addEventListener('click', () => showGraph(memory.id));
  return [
    el('h2', '', 'Memory'),
    el('p', 'content', memory.content),
    fields,
    el('h3', '', `Lineage (${lineage.length})`),
    chain,
    el('div', 'actions', undefined, graph, text, revise, forget),
  ];
}

async function reviseMemory(memory: MemoryJson, content: string): Promise<void> {
  if (content.trim() === '' || content === memory.content) {
    status('change the text to revise', true);
    return;
  }
  if (!(await confirmAction(`Store a revision of this memory?\n${content}`, 'Revise'))) return;
  try {
    const revision = await api.revise(memory.id, content);
    status(`revised: ${revision.id}`);
    await openMemory(revision.id);
    after();
  } catch (error) {
    status((error as Error).message, true);
  }
}

async function forgetMemory(memory: MemoryJson): Promise<void> {
  if (!(await confirmAction(`Forget this memory for good?\n${memory.content}`, 'Forget'))) return;
  try {
    const result = await api.forget(memory.id);
    status(`forgot ${result.forgotten_count} memory`);
    byId('memory').hidden = true;
    after();
  } catch (error) {
    status((error as Error).message, true);
  }
}
