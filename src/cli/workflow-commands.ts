/**
 * The GitHub runner's reading of a step's output, rule for rule: what the
 * jenkins-build command renders for a terminal, and what the tests assert the
 * runner would act on. The rules, with their sources in actions/runner:
 * docs/internals.md, "The runner's reading of workflow commands".
 */

/** Commands the runner registers (ActionCommandManager and the issue/group extensions). */
const REGISTERED_COMMANDS: readonly string[] = [
  'add-mask',
  'add-matcher',
  'remove-matcher',
  'debug',
  'notice',
  'warning',
  'error',
  'group',
  'endgroup',
  'echo',
  'save-state',
  'set-output',
  'set-env',
  'add-path',
  'stop-commands'
]

/**
 * A workflow command as the runner parsed it: `name` lower-cased (the runner
 * compares names case-insensitively), `value` the data as written (still
 * escaped: commandData() unescapes it).
 */
export type RunnerCommand = NonNullable<ReturnType<typeof parseCommand>>

/**
 * A line as the runner read it: `command`, the workflow command it acted on
 * (or that resumed commands); `stopped`, whether command processing was
 * stopped when it read the line.
 */
export type LogLine = ReturnType<CommandReader['read']>

// .NET's char.IsWhiteSpace, which String.TrimStart() removes: not quite
// JavaScript's \s (U+0085 is in, U+FEFF is out).
const DOTNET_LEADING_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/

/**
 * The command a line holds, as the runner reads it: `::name props::data`
 * after .NET's TrimStart (ActionCommand.TryParseV2), else `##[name props]data`
 * anywhere in the line (ActionCommand.TryParse).
 */
function parseCommand(line: string, extra?: string) {
  const v2 = /^::(.*?)::(.*)$/s.exec(line.replace(DOTNET_LEADING_SPACE, ''))
  return parsed('v2', v2, extra) ?? parsed('v1', /##\[(.*?)\](.*)$/s.exec(line), extra)
}

/** A command whose `info` (name, then properties after a space) names a registered one, or `extra`. */
function parsed(form: 'v2' | 'v1', match: RegExpExecArray | null, extra?: string) {
  const [, info = '', value = ''] = match ?? []
  const space = info.indexOf(' ')
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
  if (!match || (!REGISTERED_COMMANDS.includes(name) && name !== extra)) return undefined
  const properties = space < 0 ? '' : info.slice(space + 1)
  return { name, properties: form === 'v2' ? properties.trim() : properties, value, form }
}

// ActionCommand's escape tables, applied in this order to unescape; each
// escape stands for the character its percent-encoding decodes to.
const V1_ESCAPES = ['%3B', '%0D', '%0A', '%5D', '%25']
const DATA_ESCAPES = ['%0D', '%0A', '%25']
const PROPERTY_ESCAPES = ['%0D', '%0A', '%3A', '%2C', '%25']

function unescape(text: string, table: readonly string[]): string {
  return table.reduce(
    (value, escaped) => value.split(escaped).join(decodeURIComponent(escaped)),
    text
  )
}

/** The command's data as the runner hands it to the command (UnescapeData for v2, Unescape for v1). */
export function commandData(command: RunnerCommand): string {
  return unescape(command.value, command.form === 'v2' ? DATA_ESCAPES : V1_ESCAPES)
}

/** The command's `name=value` properties, unescaped (v2: `,`-separated; v1: `;`-separated). */
export function commandProperties(command: RunnerCommand): Record<string, string> {
  const [separator, table] = command.form === 'v2' ? [',', PROPERTY_ESCAPES] : [';', V1_ESCAPES]
  // A pair without a name or without a value is skipped.
  return Object.fromEntries(
    command.properties.split(separator).flatMap(pair => {
      const [, name, value] = /^([^=]+)=(.+)$/s.exec(pair) ?? []
      return name === undefined || value === undefined ? [] : [[name, unescape(value, table)]]
    })
  )
}

/**
 * Splits one stream into lines as StreamReader.ReadLine does, chunk by
 * chunk: a `\r\n` cut between two chunks is still one line break.
 */
export class LineSplitter {
  private partial = ''
  private afterCr = false

  /** The lines that `chunk` completes. */
  push(chunk: string): string[] {
    if (chunk === '') return []
    const text = this.afterCr && chunk.startsWith('\n') ? chunk.slice(1) : chunk
    this.afterCr = text.endsWith('\r')
    const parts = (this.partial + text).split(/\r\n|\r|\n/)
    this.partial = parts.pop() ?? ''
    return parts
  }

  /** The last line, when the stream ended without a line break after it. */
  end(): string[] {
    const last = this.partial
    this.partial = ''
    // The text after the last line break is a line only when it is not empty.
    return last === '' ? [] : [last]
  }
}

/**
 * ActionCommandManager.TryProcessCommand, line by line: which command the
 * runner acts on, and the stop-commands state that decides it. One reader
 * serves both streams of a step, as the runner's one manager does.
 */
export class CommandReader {
  private token: string | undefined

  read(text: string) {
    const command = parseCommand(text, this.token)
    if (this.token !== undefined) {
      const resumes = command?.name === this.token
      if (resumes) this.token = undefined
      return { text, stopped: true, ...(resumes ? { command } : {}) }
    }
    if (!command) return { text, stopped: false }
    if (command.name === 'stop-commands') this.token = command.value.toLowerCase()
    return { text, stopped: false, command }
  }

  /** Whether command processing is stopped now (a stop not yet resumed). */
  get stopped(): boolean {
    return this.token !== undefined
  }
}
