/** What was thrown, as text for a message: an Error's message, anything else as String() makes it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The `code` a Node error carries (`ENOENT`, `EPIPE`), if what was thrown has a string one. */
export function errorCode(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined
  return typeof code === 'string' ? code : undefined
}
