/**
 * Jenkins-supplied text (a scan log, a branch name) made safe for the step
 * log, line by line. The runner splits its input on \r, \n and \r\n, runs a
 * line that starts with `::name` (after trimming) as a workflow command,
 * and `##[name]` anywhere in a line; Jenkins text must never do either.
 *
 * A stopgap: the project is getting one printer for Jenkins text (engineer
 * `text`); this module is meant to be replaced by it.
 */

// Jenkins >= 2.509 leaves ConsoleNote annotations in plain-text logs (jenkins-api.md 6.1).
// eslint-disable-next-line no-control-regex
const CONSOLE_NOTE = /\x1b\[8mha:[^\x1b]*\x1b\[0m/g
const ZERO_WIDTH_SPACE = '\u200b'

/** One line that neither starts a workflow command nor holds a `##[` one. */
export function safeLine(text: string): string {
  return (
    text
      .replace(CONSOLE_NOTE, '')
      .replace(/\r\n|\r|\n/g, ' ')
      // A zero-width space is not whitespace to the runner's trim, so `::` stays inert.
      .replace(/^(\s*):/, `$1:${ZERO_WIDTH_SPACE}`)
      .replace(/##\[/g, `##${ZERO_WIDTH_SPACE}[`)
  )
}

/** The lines of a text as the runner would split them, each made safe. */
export function safeLines(text: string): string[] {
  return text
    .replace(CONSOLE_NOTE, '')
    .split(/\r\n|\r|\n/)
    .map(safeLine)
}
