/**
 * True while an input method (IME) owns the key: it is composing text (Japanese,
 * Chinese, Korean…), so Enter picks a candidate and Escape cancels the
 * composition — neither is the app's to act on. Chromium reports the keydown
 * that ends a composition with some macOS input methods only as keyCode 229
 * (`isComposing` already false), so both are checked.
 */
export function imeOwnsKey(e: KeyboardEvent | { nativeEvent: KeyboardEvent }): boolean {
  const key = 'nativeEvent' in e ? e.nativeEvent : e;
  // keyCode is deprecated, but 229 is the one signal Chromium gives for that keydown.
  return key.isComposing || key.keyCode === 229;
}
