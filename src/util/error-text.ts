/** What was thrown, as text for a message: an Error's message, anything else as String() makes it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
