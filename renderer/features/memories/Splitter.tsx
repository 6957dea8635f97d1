import { useCallback, useRef, useState } from 'react';

const STEP = 16;

/** A pane width in CSS pixels, kept between visits (in this window's storage; it says nothing about any memory). */
export function usePaneSize(key: string, initial: number, min: number, max: number): [number, (n: number) => void] {
  const storageKey = `mnemo.pane.${key}`;
  const [size, setSize] = useState(() => {
    try {
      const saved = Number(window.localStorage.getItem(storageKey));
      return saved >= min && saved <= max ? saved : initial;
    } catch {
      return initial;
    }
  });
  const set = useCallback(
    (n: number) => {
      const v = Math.round(Math.min(max, Math.max(min, n)));
      setSize(v);
      try {
        window.localStorage.setItem(storageKey, String(v));
      } catch {
        // Not remembered next time; the pane still resizes.
      }
    },
    [min, max, storageKey],
  );
  return [size, set];
}

/**
 * A vertical separator that resizes the pane it controls, by dragging or by
 * keyboard (arrows by 16 px, Home/End to the limits), and reports the pane's
 * width as its value. `edge` says which side of that pane it sits on: at the
 * end (right) moving right widens the pane; at the start, narrows it.
 */
export function Splitter({ label, controls, value, min, max, onChange, edge }: { label: string; controls: string; value: number; min: number; max: number; onChange: (n: number) => void; edge: 'start' | 'end' }) {
  const drag = useRef<{ x: number; value: number } | undefined>(undefined);
  const dir = edge === 'end' ? 1 : -1;
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className="splitter"
      onKeyDown={(e) => {
        const by = e.key === 'ArrowRight' ? STEP * dir : e.key === 'ArrowLeft' ? -STEP * dir : undefined;
        if (by !== undefined) onChange(value + by);
        else if (e.key === 'Home') onChange(min);
        else if (e.key === 'End') onChange(max);
        else return;
        e.preventDefault();
      }}
      onPointerDown={(e) => {
        drag.current = { x: e.clientX, value };
        e.currentTarget.setPointerCapture(e.pointerId);
      }}
      onPointerMove={(e) => {
        if (drag.current) onChange(drag.current.value + (e.clientX - drag.current.x) * dir);
      }}
      onPointerUp={() => (drag.current = undefined)}
      onPointerCancel={() => (drag.current = undefined)}
    />
  );
}
