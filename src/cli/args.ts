/**
 * The jenkins-build command line: one long flag per input of action.yml, so
 * a flag exists for every input the action has, with its description as the
 * help, and nothing here changes when an input is added. Inputs whose
 * default is `true` or `false` are switches (`--log`, `--no-log`,
 * `--log=false`, and `--wait=started` for one that takes a third value).
 * The action's messages name these flags where they name an input
 * (terminalWording, at the end).
 */
import { groupByName, splitNameValue, type NameValue } from '../util/name-value.js'
import { closestNames } from '../util/suggest.js'
import type { ActionInput } from './action-yml.js'

/** A command line the command cannot run: the message says what was expected. */
export class UsageError extends Error {}

/** What the command line and the environment asked for. */
export type CommandLine = ReturnType<typeof parseCommandLine>

/** The file name that means stdout, as to Unix tools: `--summary -`. */
export const STDOUT = '-'

/** Environment variables that give an input when its flag is absent. */
export const ENV_INPUTS: Readonly<Record<string, string>> = {
  url: 'JENKINS_URL',
  user: 'JENKINS_USER',
  token: 'JENKINS_TOKEN',
  'job-token': 'JENKINS_JOB_TOKEN'
}

/** Inputs that hold secrets: masked in the command's output, and a flag for one is warned about. */
export const SECRET_INPUTS: readonly string[] = ['token', 'job-token', 'github-token']

/** The command's own flags (long names), which no input may take. */
const OWN_FLAGS = ['json', 'summary', 'verbose', 'help', 'param', 'file']

/** `${{ github.token }}` is the runner's to evaluate: from a terminal, GITHUB_TOKEN stands for it. */
export function defaultsToGithubToken(input: ActionInput): boolean {
  return /^\$\{\{\s*github\.token\s*\}\}$/.test(input.default?.trim() ?? '')
}

/** An input whose default is `true` or `false`: it may be given without a value. */
export function isSwitch(input: ActionInput): boolean {
  return input.default === 'true' || input.default === 'false'
}

/** Parses the arguments; throws UsageError for a command line it cannot take. */
export function parseCommandLine(
  argv: readonly string[],
  inputs: readonly ActionInput[],
  env: Readonly<Record<string, string | undefined>>
) {
  // An input named like one of the command's own flags is a defect of action.yml.
  const clash = inputs.find(input => OWN_FLAGS.includes(input.name) || input.name.startsWith('no-'))
  if (clash) {
    throw new Error(
      `action.yml input '${clash.name}' clashes with jenkins-build's own --${clash.name}`
    )
  }
  const table = new Map(inputs.map(input => [input.name, input]))
  /** Input values given as flags or by the environment, by input name. */
  const given: Record<string, string> = {}
  /** `json`: the outputs as JSON on stdout (the log then goes to stderr); `verbose`: debug lines (ACTIONS_STEP_DEBUG on the runner). */
  const own = { json: false, verbose: false, help: false }
  /** Where the job summary goes: a file, or stdout for `-` (STDOUT). */
  let summary: string | undefined
  const params: NameValue[] = []
  const files: string[] = []
  const flagged = new Set<string>()

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '-h' || arg === '--help') {
      own.help = true
      continue
    }
    // `-pNAME=value` is `--param=NAME=value`; `-p NAME=value`, `--param NAME=value`.
    const long = /^-p[^-]/.test(arg) ? `--param=${arg.slice(2)}` : arg === '-p' ? '--param' : arg
    if (!long.startsWith('--')) {
      throw new UsageError(
        arg.startsWith('-')
          ? `unknown option ${arg}`
          : `unexpected argument '${arg}': every input is a flag (--job NAME, --url URL, ...)`
      )
    }
    const [, name = '', inline] = /^--([^=]*)(?:=(.*))?$/s.exec(long) ?? []
    // The value after `=`, else the next argument.
    const value = (): string => {
      const next = inline ?? argv[++i]
      if (next === undefined) throw new UsageError(`${arg} needs a value`)
      return next
    }
    const negated = name.startsWith('no-') ? table.get(name.slice(3)) : undefined
    if (negated && !isSwitch(negated)) {
      throw new UsageError(`--${name}: --${negated.name} is not an on/off input`)
    }
    if (inline !== undefined && (negated || name === 'json' || name === 'verbose')) {
      throw new UsageError(`--${name} takes no value`)
    }
    if (name === 'param') params.push(param(value(), params.length + 1))
    else if (name === 'file') files.push(fileSpec(value(), files.length + 1))
    else if (name === 'summary') summary = value()
    else if (name === 'json' || name === 'verbose') own[name] = true
    else {
      // The rest name inputs.
      const input = negated ?? table.get(name)
      if (!input) throw new UsageError(`unknown option --${name}${suggestion(name, table)}`)
      const next = argv[i + 1]
      // A switch alone is on; a word after it is its value (`--wait started`).
      const alone =
        inline === undefined && isSwitch(input) && (next === undefined || next.startsWith('-'))
      given[input.name] = negated ? 'false' : alone ? 'true' : value()
      flagged.add(input.name)
    }
  }

  if (params.length > 0) {
    if (flagged.has('parameters')) throw new UsageError('give either --parameters or -p, not both')
    // JSON carries any value as it is (a line break, a leading `{`).
    given.parameters = JSON.stringify(groupByName(params))
  }
  if (files.length > 0) {
    if (flagged.has('files')) throw new UsageError('give either --files or --file, not both')
    given.files = files.join('\n')
  }
  if (own.json && summary === STDOUT) {
    throw new UsageError('give either --json or --summary -, not both: each writes to stdout')
  }
  for (const [name, variable] of Object.entries(ENV_INPUTS)) {
    const fromEnv = env[variable]
    if (!flagged.has(name) && fromEnv) given[name] = fromEnv
  }
  /** Said before the run: a secret on the command line. */
  const warnings = SECRET_INPUTS.filter(name => flagged.has(name)).map(name => {
    const variable = name === 'github-token' ? 'GITHUB_TOKEN' : ENV_INPUTS[name]
    return (
      `--${name} on the command line lands in your shell history, and in the process list while this runs` +
      (variable ? `; set ${variable} in the environment instead.` : '.')
    )
  })
  /** How the `files` input was given, for the messages that name it. */
  const fileFlag = files.length > 0 ? '--file' : flagged.has('files') ? '--files' : undefined
  /** `fileValues`: the `--file` values, in order (each a line of `files`). */
  return { given, ...own, summary, fileFlag, fileValues: files, warnings }
}

/**
 * Every input's value for the step, as the runner would pass it: action.yml's
 * defaults, then what was given. `${{ github.token }}` becomes GITHUB_TOKEN
 * (empty without it); another expression, which only a runner can evaluate,
 * becomes empty.
 */
export function stepInputs(
  inputs: readonly ActionInput[],
  given: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>
): Record<string, string> {
  const values: Record<string, string> = {}
  for (const input of inputs) {
    if (input.default === undefined) continue
    values[input.name] = defaultsToGithubToken(input)
      ? (env.GITHUB_TOKEN ?? '')
      : input.default.includes('${{')
        ? ''
        : input.default
  }
  return { ...values, ...given }
}

/** `-p NAME=value`, split by splitNameValue. */
function param(arg: string, index: number): NameValue {
  const pair = splitNameValue(arg)
  // The value may be a secret: the message names the position, never the text.
  if (!('missing' in pair)) return pair
  throw new UsageError(
    `-p #${index} ${pair.missing === '=' ? "is not NAME=value (no '=')" : "has an empty NAME before '='"}`
  )
}

/** `--file NAME=path`: one line of the `files` input (the action checks the path). */
function fileSpec(arg: string, index: number): string {
  if (!arg.includes('=')) throw new UsageError(`--file #${index} is not NAME=path (no '=')`)
  if (/[\r\n]/.test(arg)) throw new UsageError(`--file #${index} holds a line break`)
  return arg
}

function suggestion(name: string, table: ReadonlyMap<string, ActionInput>): string {
  const close = closestNames(name, [...table.keys(), ...OWN_FLAGS])
  return close.length > 0 ? ` (did you mean ${close.map(n => `--${n}`).join(', ')}?)` : ''
}

/**
 * The action's messages, worded for a terminal: the one place where the
 * action's input names become jenkins-build's flags (those above, so an
 * input added to action.yml is worded with no change here). Only the
 * action's own messages are reworded, never Jenkins' text:
 * docs/internals.md, "The action's messages on a terminal".
 */
/** How the terminal names an input: its flag, and the variable that also gives it. */
function flagWording(input: ActionInput): string {
  const variable = defaultsToGithubToken(input) ? 'GITHUB_TOKEN' : ENV_INPUTS[input.name]
  return variable ? `--${input.name} (or ${variable})` : `--${input.name}`
}

/** `${{ … }}` has no meaning in a terminal: what a user types there instead. */
function expressionWording(text: string): string {
  return text
    .replace(/\$\{\{\s*github\.event\.number\s*\}\}/g, '<number>')
    .replace(/\$\{\{\s*github\.token\s*\}\}/g, '$GITHUB_TOKEN')
    .replace(/\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, '"$$$1"')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Rewords one message of the action for a terminal; `typed`: how the command
 * line gave `files` (`--file NAME=path`, line N of `files` being the Nth, or `--files`).
 */
export function terminalWording(
  inputs: readonly ActionInput[],
  typed: { fileFlag?: CommandLine['fileFlag']; fileValues?: readonly string[] } = {}
): (text: string) => string {
  const byName = new Map(inputs.map(input => [input.name, input]))
  // Longest first, so that `job-token` is not read as `job`.
  const names = [...byName.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp)
  const name = `(${names.join('|')})`
  const flag = (input: string): string => {
    if (input === 'files' && typed.fileFlag) return typed.fileFlag
    const found = byName.get(input)
    return found ? flagWording(found) : `'${input}'`
  }
  const rules: Array<[RegExp, (match: string, ...groups: string[]) => string]> = [
    // `Input 'files' line 2`: the --file flag that made that line, as typed.
    [
      /\bInput 'files' line (\d+)\b/g,
      (match, n = '') => {
        const value = typed.fileFlag === '--file' ? typed.fileValues?.[Number(n) - 1] : undefined
        return value === undefined ? match : flagExample(byName.get('files'), 'file', value)
      }
    ],
    // `Input 'user' …`, `the 'url' input`; `Inputs 'a' and 'b'`, `the 'a' and 'b' inputs`.
    [
      new RegExp(`\\bInput '${name}'|\\bthe '${name}' input\\b`, 'g'),
      (_, one = '', other = '') => flag(one || other)
    ],
    [
      new RegExp(`\\bInputs '${name}' and '${name}'|\\bthe '${name}' and '${name}' inputs\\b`, 'g'),
      (_, a = '', b = '', c = '', d = '') => `${flag(a || c)} and ${flag(b || d)}`
    ],
    // The credentials named in plain words (`set user and token`), as the 401 messages do.
    [/\buser and token\b/g, () => `${flag('user')} and ${flag('token')}`],
    // A `with:` line as an example: `branch: main` is `--branch main`.
    [
      new RegExp(`\`${name}: ([^\`\\n]*)\``, 'g'),
      (_, input = '', value = '') => `\`${flagExample(byName.get(input), input, value)}\``
    ],
    // Another input named in passing: `set 'token' to …`. A quoted key of
    // `jobs` or `parameters` (`the key 'job'`, `value of 'url'`) is not an input.
    [
      new RegExp(`(?<=^|[\\s,;:])(?<!key |of )'${name}'(?=$|[\\s.,;:)])`, 'g'),
      (_, input = '') => flag(input)
    ]
  ]
  return text =>
    expressionWording(
      rules.reduce((out, [pattern, replace]) => out.replace(pattern, replace), text)
    )
}

function flagExample(input: ActionInput | undefined, name: string, value: string): string {
  if (input && isSwitch(input) && value.trim() === 'true') return `--${name}`
  if (input && isSwitch(input) && value.trim() === 'false') return `--no-${name}`
  // An expression becomes what stands for it in a shell, quoted as needed already.
  if (value.includes('${{')) return `--${name} ${expressionWording(value)}`
  return /^[\w./:,@=+-]*$/.test(value) ? `--${name} ${value}` : `--${name} '${value}'`
}
