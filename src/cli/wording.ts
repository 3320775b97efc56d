/**
 * The action's messages, worded for a terminal: the one place where the
 * action's input names become jenkins-build's flags (those of args.ts, so an
 * input added to action.yml is worded with no change here). Only the
 * action's own messages are reworded, never Jenkins' text:
 * docs/internals.md, "The action's messages on a terminal".
 */
import type { ActionInput } from './action-yml.js'
import { defaultsToGithubToken, ENV_INPUTS, isSwitch, type CommandLine } from './args.js'

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
    // `Input 'user' …`, `the 'url' input`.
    [new RegExp(`\\bInput '${name}'`, 'g'), (_, input = '') => flag(input)],
    [new RegExp(`\\bthe '${name}' input\\b`, 'g'), (_, input = '') => flag(input)],
    [
      new RegExp(`\\bInputs '${name}' and '${name}'`, 'g'),
      (_, one = '', two = '') => `${flag(one)} and ${flag(two)}`
    ],
    [
      new RegExp(`\\bthe '${name}' and '${name}' inputs\\b`, 'g'),
      (_, one = '', two = '') => `${flag(one)} and ${flag(two)}`
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
