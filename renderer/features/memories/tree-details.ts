import { useSyncExternalStore } from 'react';

const KEY = 'mnemo.tree.details';
const listeners = new Set<() => void>();
let shown: boolean | undefined;

function read(): boolean {
  if (shown === undefined) {
    try {
      shown = window.localStorage.getItem(KEY) === '1';
    } catch {
      shown = false;
    }
  }
  return shown;
}

/**
 * Whether the memory trees show each file's size and date in a column (else
 * only in the row's tooltip). One setting for both trees (the Memories tab and
 * the pane beside the chat), kept between visits in this window's storage; it
 * says nothing about any memory.
 */
export function useTreeDetails(): [boolean, (on: boolean) => void] {
  const value = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
  );
  return [value, setTreeDetails];
}

function setTreeDetails(on: boolean): void {
  shown = on;
  try {
    window.localStorage.setItem(KEY, on ? '1' : '0');
  } catch {
    // Remembered for this session only; the column still toggles.
  }
  for (const l of listeners) l();
}
