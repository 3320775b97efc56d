import * as core from '@actions/core'
import type { Logger } from '../util/logger.js'
import { whenCommandsRun } from '../runner/commands.js'
import { redactSecrets } from './secrets.js'

/**
 * The one printer for text outside the console's stop-commands region: every
 * step-log line the action writes goes through inertLine, because most of
 * them quote Jenkins, and Jenkins text is untrusted. An escaped line with no
 * line break, no `##[`, and no `::` at its start can form no command:
 * docs/internals.md, "Inert step-log lines".
 */

// C0 and C1 controls but TAB: CR and LF split lines, and U+0085 (NEL) is
// whitespace to .NET's TrimStart though not to JavaScript's `\s`.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' }

/**
 * One step-log line that the runner cannot take for a workflow command:
 * control characters (line breaks included) are shown escaped (`\n`, `\r`,
 * `\x1b`), every `##[` becomes `#\#[`, and a line that would start with `::`
 * after its leading whitespace gets a `\` before it.
 */
export function inertLine(text: string): string {
  const escaped = text
    .replace(CONTROL, c => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/##\[/g, '#\\#[')
  // JavaScript's \s covers .NET's whitespace once U+0085 is escaped above.
  return escaped.replace(/^(\s*)::/, '$1\\::')
}

/**
 * The step log, for every module (they never call @actions/core's printing
 * themselves; ESLint enforces it). Info lines go through inertLine, since
 * they quote Jenkins; debug and warning are safe as they are: @actions/core
 * escapes their data and starts the line with its own `::debug::` or
 * `::warning::`, which the runner parses first. Those two are commands: while
 * the console prints (commands stopped) they wait for the resume. Every line
 * leaves without the step's secrets (secrets.ts): a warning is also an
 * annotation, which the runner shows as sent.
 */
export const coreLogger: Logger = {
  debug: message => whenCommandsRun(() => core.debug(redactSecrets(message))),
  info: message => core.info(inertLine(redactSecrets(message))),
  warning: message => whenCommandsRun(() => core.warning(redactSecrets(message)))
}
