/** At most `max` characters (code points), an ellipsis marking the cut. */
export function cut(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…'
}

/** A value quoted in a message: its first 40 characters, an ellipsis marking a cut. */
export function clip(text: string): string {
  return cut(text, 41)
}
