/**
 * Project names: how long one may be, when two count as the same, and how a
 * name is made unique with a suffix. Pure, so the store and the sync merge
 * rules (vault/sync/merge-rules.ts) name projects alike.
 */
export const MAX_PROJECT_NAME = 100;

/**
 * `name` with `suffix`, the name shortened (by whole characters, from its end) so the result stays within
 * MAX_PROJECT_NAME: it still starts as the name did, and no emoji is cut in half into an unpaired surrogate.
 */
export function withSuffix(name: string, suffix: string): string {
  const room = MAX_PROJECT_NAME - [...suffix].length;
  return [...name].slice(0, room).join('').trimEnd() + suffix;
}

/** Two project names are the same when they differ only in case. */
export const sameName = (a: string, b: string): boolean => a.toLocaleLowerCase('en-US') === b.toLocaleLowerCase('en-US');
