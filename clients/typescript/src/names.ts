/**
 * The one mapping between the client's camelCase names and the server's snake_case JSON names:
 * `topK` ↔ `top_k`, `scoringWeights.wRelevance` ↔ `scoring_weights.w_relevance`, and the one
 * name that is not a case change, an edge's `targetId` ↔ `target`. The values of `OPAQUE` keys
 * (a memory's `context`, recall's `cueContext` and `filter`, a result's `scores`) are the caller's or the
 * server's own data: their keys are never renamed.
 */

/** Client names whose wire name is not their snake_case. */
const RENAMES: Readonly<Record<string, string>> = { targetId: 'target' };
const WIRE_RENAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(RENAMES).map(([client, wire]) => [wire, client]),
);

/** Wire keys whose values are passed through as they are. */
export const OPAQUE: ReadonlySet<string> = new Set(['context', 'cue_context', 'filter', 'scores']);

/** The wire name of client name `name` (`topK` → `top_k`). */
export function toWireName(name: string): string {
  return RENAMES[name] ?? name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The client name of wire name `name` (`top_k` → `topK`). */
export function fromWireName(name: string): string {
  return (
    WIRE_RENAMES[name] ?? name.replace(/_([a-z0-9])/g, (_match, next: string) => next.toUpperCase())
  );
}

/** A dotted field path the server named (`items[1].entity_id`, `edges[0].target`) in the
 * client's names (`items[1].entityId`, `edges[0].targetId`); parts under an opaque key stay. */
export function fieldFromWire(path: string): string {
  const parts = path.split('.');
  const out: string[] = [];
  let opaque = false;
  for (const part of parts) {
    if (opaque) {
      out.push(part);
      continue;
    }
    const match = /^([^[]*)(.*)$/.exec(part);
    const name = match?.[1] ?? part;
    const indexes = match?.[2] ?? '';
    out.push(fromWireName(name) + indexes);
    opaque = OPAQUE.has(name);
  }
  return out.join('.');
}
