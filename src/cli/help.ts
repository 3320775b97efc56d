/**
 * `jenkins-build --help`: every input of action.yml as a flag, with the
 * input's own description, then the command's flags and environment.
 */
import type { ActionInput } from './action-yml.js'
import { defaultsToGithubToken, ENV_INPUTS, isSwitch } from './args.js'

const OWN: ReadonlyArray<[string, string]> = [
  [
    '-p, --param NAME=VALUE',
    'A build parameter; repeat it for several, and give a NAME twice for a multi-value parameter. Sets `parameters` (as a JSON object, so a value is passed exactly as written).'
  ],
  [
    '--file NAME=PATH',
    "A file for the job's file parameter NAME, relative to the current directory (the workspace); repeat it for several. Sets `files`."
  ],
  ['--json', 'Print the outputs as one JSON object on stdout; the log goes to stderr.'],
  [
    '--summary FILE',
    "Write the step's job summary (Markdown) to FILE; - for stdout (the log goes to stderr)."
  ],
  [
    '--verbose',
    "Show the step's debug lines, as ACTIONS_STEP_DEBUG does on GitHub (and set RUNNER_DEBUG=1 for it)."
  ],
  ['-h, --help', 'Show this help.']
]

/** The help, wrapped to `width` columns. */
export function helpText(inputs: readonly ActionInput[], width = 100): string {
  const rows = inputs.map((input): [string, string] => [flagOf(input), describe(input)])
  const column = Math.min(30, Math.max(...[...rows, ...OWN].map(([flag]) => flag.length)) + 2)
  const table = (entries: ReadonlyArray<[string, string]>): string[] =>
    entries.flatMap(([flag, text]) => {
      const lines = wrap(text, Math.max(30, width - column - 2))
      const first =
        flag.length + 2 <= column
          ? [`  ${flag.padEnd(column)}${lines.shift() ?? ''}`]
          : [`  ${flag}`]
      return [...first, ...lines.map(line => `  ${' '.repeat(column)}${line}`)]
    })
  return [
    'Usage: jenkins-build --url URL --job JOB [flags]',
    '',
    ...wrap(
      'Runs this action from a terminal: its bundle (dist/index.js) as the GitHub runner runs a `uses:` step, then its post step, with the same inputs, log, outputs (the main ones at the end; all with --json) and exit status. Ctrl+C cancels as a cancelled workflow does (the Jenkins build is stopped). Under Node 24 from tools/node24 when `npm test` installed it there, else under this Node. The workspace, where `artifacts` land, is the current directory.',
      width
    ),
    '',
    'Inputs (action.yml; a switch is also --NAME alone, --no-NAME, or --NAME=VALUE):',
    ...table(rows),
    '',
    'Flags of the command:',
    ...table(OWN),
    '',
    'Environment:',
    ...table([
      ...Object.entries(ENV_INPUTS).map(([name, variable]): [string, string] => [
        variable,
        `The default for --${name}.`
      ]),
      ['GITHUB_TOKEN', 'The default for --github-token (the runner passes the workflow token).'],
      [
        '(others)',
        'Passed to the step as the runner passes its own: HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS...'
      ]
    ]),
    '',
    ...wrap(
      'Prefer JENKINS_TOKEN to --token (and JENKINS_JOB_TOKEN to --job-token): a command line lands in your shell history and in the process list. Secrets are masked in everything the command prints, as on the runner.',
      width
    ),
    '',
    ...wrap(
      "Exit status: the main step's, as the job would have it: 0 when it succeeds, 1 when it fails (the log says why), or the post step's failure; 2 for a command line it cannot run. Ctrl+C, SIGTERM or SIGHUP stop what the step started, run the post step, then end the command by that signal (130, 143, 129 in a shell). A reader that closes the output (`| head`) is handled as Ctrl+C, and the status is 141.",
      width
    ),
    ''
  ].join('\n')
}

function flagOf(input: ActionInput): string {
  const value = input.name.toUpperCase().replace(/-/g, '_')
  return isSwitch(input) ? `--[no-]${input.name}` : `--${input.name} ${value}`
}

function describe(input: ActionInput): string {
  const notes: string[] = []
  if (input.required) notes.push('required')
  const variable = ENV_INPUTS[input.name]
  if (variable) notes.push(`env ${variable}`)
  if (defaultsToGithubToken(input)) notes.push('default: $GITHUB_TOKEN')
  else if (input.default && !input.default.includes('${{')) notes.push(`default: ${input.default}`)
  const text = input.description.replace(/\s+/g, ' ').trim()
  return notes.length > 0 ? `${text} (${notes.join('; ')})` : text
}

/**
 * Words wrapped to lines of at most `width` characters (a longer word has its
 * own line). A terminal may report 0 columns: then every word is one line.
 */
function wrap(text: string, width: number): string[] {
  const most = Math.max(1, width)
  return Array.from(
    text.matchAll(new RegExp(`(\\S{${most + 1},}|.{1,${most}})(?= |$) ?`, 'g')),
    m => m[1] ?? ''
  )
}
