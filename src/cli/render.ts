/**
 * A step's output rendered for a terminal, as the runner's log shows it:
 * the runner's own reading of the command stream (workflow-commands.ts)
 * decides which lines are commands, and each command becomes what the log
 * shows for it; only colour sequences pass to a colour terminal, every other
 * control character is shown escaped. Command by command:
 * docs/internals.md, "A step rendered for a terminal".
 */
import { plainConsoleLine } from '../util/console-line.js'
import type { Redaction } from '../util/redaction.js'
import {
  CommandReader,
  commandData,
  commandProperties,
  LineSplitter,
  type LogLine,
  type RunnerCommand
} from './workflow-commands.js'

export interface RenderOptions {
  /** Show `::debug::` lines (what ACTIONS_STEP_DEBUG does on the runner). */
  verbose: boolean
  /** Colour the annotations and headings, and pass Jenkins' own colours (a colour terminal). */
  color: boolean
  /** The action's own messages worded for a terminal (args.ts, terminalWording); as written without it. */
  wording?: (text: string) => string
}

/** Each style's SGR code: a colour (reset by 39), or dim or bold (reset by 22). */
const STYLES = { error: 31, warning: 33, notice: 36, debug: 2, heading: 1 } as const
export type Style = keyof typeof STYLES

const PREFIX: Partial<Record<string, [string, Style]>> = {
  error: ['Error: ', 'error'],
  warning: ['Warning: ', 'warning'],
  notice: ['Notice: ', 'notice'],
  debug: ['Debug: ', 'debug'],
  group: ['=== ', 'heading']
}

// SGR (colour) sequences, or one control character but TAB.
// eslint-disable-next-line no-control-regex
const UNSAFE = /(\x1b\[[0-9;:]*m)|[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g

/** Console lines kept to recognise a failure's tail (the action quotes at most 30). */
const TAIL_KEPT = 64

/**
 * One line of text made safe for a terminal: colour sequences kept (or dropped), other controls shown escaped.
 * @internal
 */
export function terminalSafe(text: string, color: boolean): string {
  return text.replace(UNSAFE, (match, sgr: string | undefined) => {
    if (sgr !== undefined) return color ? sgr : ''
    return `\\x${match.charCodeAt(0).toString(16).padStart(2, '0')}`
  })
}

/**
 * One step's log, fed chunk by chunk from its stdout and stderr (one command
 * state for both, as on the runner), written out line by line.
 */
export class StepLog {
  private readonly reader = new CommandReader()
  private readonly splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() }
  private echo = false
  /** The plain lines of the group being shown, then of the last one shown: the console, which a failure's tail repeats. */
  private groupLines: string[] = []
  private inGroup = false
  /** Each error annotation's text, as shown: the last one is why the step failed. */
  readonly errors: string[] = []

  constructor(
    private readonly write: (text: string, style?: Style) => void,
    private readonly masker: Redaction,
    private readonly options: RenderOptions
  ) {}

  /** A chunk of the step's stdout or stderr. */
  feed(stream: 'stdout' | 'stderr', chunk: string): void {
    for (const text of this.splitters[stream].push(chunk)) this.line(this.reader.read(text))
  }

  /** The step has exited: its unfinished last lines are lines too. */
  end(): void {
    for (const splitter of Object.values(this.splitters)) {
      for (const text of splitter.end()) this.line(this.reader.read(text))
    }
  }

  private line(entry: LogLine): void {
    const { command } = entry
    if (!command) {
      if (this.inGroup) this.groupLines.push(entry.text)
      if (this.groupLines.length > 2 * TAIL_KEPT) this.groupLines.splice(0, TAIL_KEPT)
      // Outside a stop-commands region a plain line is the action's own
      // (Jenkins' console is always inside one), worded for a terminal too.
      const { wording } = this.options
      return this.note(entry.stopped || !wording ? entry.text : wording(entry.text))
    }
    // The command that ends a stopped region is a marker, like the one that began it.
    if (entry.stopped) return
    if (this.echo && command.name !== 'add-mask' && command.name !== 'stop-commands') {
      this.note(entry.text)
    }
    this.act(command)
  }

  private act(command: RunnerCommand): void {
    const data = commandData(command)
    switch (command.name) {
      case 'add-mask':
        if (this.echo && data.trim() !== '') this.note('::add-mask::***')
        this.masker.add(data)
        return
      case 'stop-commands':
        // The runner masks a token longer than 6 characters.
        if (data.length > 6) this.masker.add(data)
        return
      case 'echo':
        if (/^(on|off)$/i.test(data.trim())) this.echo = data.trim().toLowerCase() === 'on'
        return
      case 'debug':
        if (!this.options.verbose) return
        break
      case 'group':
        this.groupLines = []
        this.inGroup = true
        break
      case 'endgroup':
        this.inGroup = false
        break
    }
    const prefix = PREFIX[command.name]
    if (!prefix) return
    // A titled annotation is a failed test: its title is the test's name and
    // its text Jenkins', shown as they are. Untitled ones are the action's.
    const properties = command.name === 'group' ? {} : commandProperties(command)
    const { title, file, line } = properties
    const { wording } = this.options
    const text =
      title !== undefined
        ? `${title}: ${data}`
        : wording && command.name !== 'group'
          ? wording(data)
          : data
    if (command.name === 'error') this.errors.push(this.masker.redact(text))
    if (title === undefined) {
      return this.note(`${prefix[0]}${this.withoutRepeatedTail(text)}`, prefix[1])
    }
    // A failed test: `Error: name: message`, or at a known place
    // `path:line: name: message`, the form editors and terminals turn into
    // a link to that line. Each line of the message gets the same start, so
    // that it reads (and greps) as the test's. Masked before it is cut into
    // lines, so that a secret over two lines is still found.
    const lead = file !== undefined ? `${file}${line !== undefined ? `:${line}` : ''}: ` : prefix[0]
    const name = this.masker.redact(title)
    const lines = this.masker.redact(text).split(/\r\n|\r|\n/)
    this.note(lines.map((l, i) => `${lead}${i > 0 ? `${name}: ` : ''}${l}`).join('\n'), prefix[1])
  }

  /**
   * A failure's message ends with the console's last lines, for the
   * annotation; in a terminal that just showed the whole console they would
   * be the same lines twice, so they go when they are exactly the end of the
   * group just shown.
   */
  private withoutRepeatedTail(text: string): string {
    const match = /\nLast (\d+) console lines:\n/.exec(text)
    if (!match) return text
    const tail = text.slice(match.index + match[0].length).split('\n')
    const shown = this.groupLines.map(plainConsoleLine)
    while (shown.length > 0 && (shown.at(-1) ?? '').trim() === '') shown.pop()
    const end = shown.slice(-tail.length)
    const repeated =
      tail.length === Number(match[1]) &&
      end.length === tail.length &&
      end.every((line, i) => line === tail[i])
    return repeated ? text.slice(0, match.index) : text
  }

  /** A line of the step's, or of the command's own, under the masking and terminal rules. */
  note(text: string, style?: Style): void {
    const { color } = this.options
    const code = style && color ? STYLES[style] : undefined
    const [open, close] = code ? [`\x1b[${code}m`, `\x1b[${code > 9 ? 39 : 22}m`] : ['', '']
    for (const line of this.masker.redact(text).split(/\r\n|\r|\n/)) {
      this.write(`${open}${terminalSafe(line, color)}${close}\n`, style)
    }
  }
}
