/**
 * An entity's timeline: its memories by creation time (a temporal recall, within the optional
 * from/to dates, UTC, both days included), oldest on the left, in a strip that scrolls sideways,
 * each card dated; a click opens the memory.
 */

import { api } from './api.js';
import { byId, el, status, time } from './dom.js';

/** Memories a timeline shows at most. */
export const TIMELINE_TOP_K = 200;
/** A day in microseconds. */
const DAY_US = 86_400 * 1_000_000;

let open: (id: string) => void = () => undefined;

export function setUpTimeline(onOpen: (id: string) => void): void {
  open = onOpen;
  byId<HTMLFormElement>('timeline-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void showTimeline(byId<HTMLInputElement>('timeline-entity').value.trim());
  });
}

export async function showTimeline(entity: string): Promise<void> {
  if (entity === '') {
    status('name an entity for its timeline', true);
    return;
  }
  try {
    const body: Record<string, unknown> = {
      strategies: ['temporal'],
      entity_id: entity,
      top_k: TIMELINE_TOP_K,
    };
    const from = byId<HTMLInputElement>('timeline-from').valueAsNumber;
    const to = byId<HTMLInputElement>('timeline-to').valueAsNumber;
    if (!Number.isNaN(from) || !Number.isNaN(to)) {
      body['time_range'] = [
        Number.isNaN(from) ? null : from * 1000,
        Number.isNaN(to) ? null : to * 1000 + DAY_US - 1,
      ];
    }
    const output = await api.recall(body);
    const memories = output.results
      .map((result) => result.memory)
      .sort((a, b) => a.created_at - b.created_at);
    const strip = byId('timeline-strip');
    strip.replaceChildren(
      ...memories.map((memory) => {
        const card = el(
          'div',
          `card ${memory.kind}`,
          undefined,
          el('time', '', time(memory.created_at)),
          el('p', '', memory.content),
        );
        card.dataset['id'] = memory.id;
        card.addEventListener('click', () => open(memory.id));
        return card;
      }),
    );
    byId('timeline-summary').textContent = `${memories.length} memories of ${entity}`;
    strip.scrollLeft = strip.scrollWidth;
  } catch (error) {
    status((error as Error).message, true);
  }
}
