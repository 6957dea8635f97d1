/**
 * What the "Go to" palette offers and how typing narrows it: plain data and
 * pure functions, so the matching can be tested without a window.
 */

/** Where an item of the palette goes. */
export type PaletteTarget =
  | { kind: 'conversation'; id: string }
  | { kind: 'memory'; path: string; project: string }
  | { kind: 'project'; id: string }
  | { kind: 'setting'; heading: string }
  | { kind: 'action'; action: 'new' | 'temporary' | 'shortcuts' | 'lock' };

export interface PaletteItem {
  /** Unique in the list; also the option's element id. */
  key: string;
  /** What is matched and shown first: a conversation's title, a memory's path, a project's or section's name. */
  label: string;
  /** Said after the label: what kind of thing it is, in the window's language… */
  kind: string;
  /** …and the name of the project it is in, where there are several. */
  project?: string | undefined;
  target: PaletteTarget;
}

/**
 * Text as it is compared: case and accents ignored (é, É and e are the same;
 * so are ｆ and f, by compatibility decomposition), so "cafe" finds "Café".
 */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase('en').replace(/ß/g, 'ss');
}

/** How well `label` answers the words of a query (lower is better), or undefined when a word is missing. */
function rank(label: string, words: string[]): number | undefined {
  let score = 0;
  for (const w of words) {
    const at = label.indexOf(w);
    if (at < 0) return undefined;
    // At the very start beats at the start of a word (after a space, a slash, a dot…), which beats inside one.
    score += at === 0 ? 0 : /[\s/._\-(]/.test(label[at - 1]!) ? 1 : 2;
  }
  return score;
}

/**
 * The items that hold every word of `query` in their label (ignoring case and
 * accents), best matches first; equally good ones keep their order (the
 * palette lists conversations newest first, then memories, projects, settings).
 * An empty query keeps everything in order. At most `limit` come back.
 */
export function filterItems(items: readonly PaletteItem[], query: string, limit = 50): PaletteItem[] {
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (!words.length) return items.slice(0, limit);
  const hits: Array<{ item: PaletteItem; score: number; order: number }> = [];
  items.forEach((item, order) => {
    const score = rank(fold(item.label), words);
    if (score !== undefined) hits.push({ item, score, order });
  });
  hits.sort((a, b) => a.score - b.score || a.order - b.order);
  return hits.slice(0, limit).map((h) => h.item);
}
