/**
 * The disclosure chevron of the window's show/hide toggles (the conversation
 * list, the memory list): an SVG drawn in the text's colour, hidden from
 * screen readers (the button carries the name and aria-expanded). It points
 * down; the toggle's CSS turns it for the collapsed state and for
 * right-to-left text.
 */
export function Chevron() {
  return (
    <svg aria-hidden="true" className="chevron" viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M6 9l6 6 6-6" />
    </svg>
  );
}
