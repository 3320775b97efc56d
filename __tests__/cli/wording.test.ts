import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { terminalWording } from '../../src/cli/args.js'
import { ROOT } from '../../scripts/action-runner.js'

/** The wording for action.yml's own inputs, as the command uses it. */
const word = terminalWording(readActionInputs(join(ROOT, 'action.yml')))

describe('the action messages worded for a terminal', () => {
  it('names the flag and the variable of an input, wherever a message names the input', () => {
    expect(
      word(
        "Input 'user' ('x') is set but 'token' is empty: set 'token' to the user's API token (or leave both empty for anonymous access)."
      )
    ).toBe(
      "--user (or JENKINS_USER) ('x') is set but --token (or JENKINS_TOKEN) is empty: set --token (or JENKINS_TOKEN) to the user's API token (or leave both empty for anonymous access)."
    )
    expect(word("check the 'url' input (its host and port)")).toBe(
      'check --url (or JENKINS_URL) (its host and port)'
    )
    expect(word('asked for credentials (401): set user and token')).toBe(
      'asked for credentials (401): set --user (or JENKINS_USER) and --token (or JENKINS_TOKEN)'
    )
    expect(word("built from the 'user' and 'token' inputs; check")).toBe(
      'built from --user (or JENKINS_USER) and --token (or JENKINS_TOKEN); check'
    )
    expect(word("Input 'commit-status' is true but 'github-token' is empty")).toBe(
      '--commit-status is true but --github-token (or GITHUB_TOKEN) is empty'
    )
  })

  it('the files input is named by the flag the user typed: --file NAME=path or --files', () => {
    const inputs = readActionInputs(join(ROOT, 'action.yml'))
    const message = "Input 'files' gives job 'upload' a file for a parameter that takes none."
    expect(terminalWording(inputs, { fileFlag: '--file' })(message)).toBe(
      "--file gives job 'upload' a file for a parameter that takes none."
    )
    expect(terminalWording(inputs, { fileFlag: '--files' })(message)).toBe(
      "--files gives job 'upload' a file for a parameter that takes none."
    )
  })

  it('a line of files is the --file flag that made it, as typed; with --files, the line', () => {
    const inputs = readActionInputs(join(ROOT, 'action.yml'))
    const message =
      "Input 'files' line 2: the path for B ('../b') has a '..' segment: expected `NAME=path` lines."
    const typed = { fileFlag: '--file', fileValues: ['A=a.zip', 'B=../b'] } as const
    expect(terminalWording(inputs, typed)(message)).toBe(
      "--file B=../b: the path for B ('../b') has a '..' segment: expected `NAME=path` lines."
    )
    expect(
      terminalWording(inputs, { fileFlag: '--file', fileValues: ['A=my file'] })(
        "Input 'files' line 1 has no path"
      )
    ).toBe("--file 'A=my file' has no path")
    expect(terminalWording(inputs, { fileFlag: '--files' })(message)).toMatch(/^--files line 2: /)
  })

  it('the job message: required unless --jobs or --list-jobs', () => {
    expect(
      word("Input 'job' is required unless 'jobs' is set or 'list-jobs' is true: expected x.")
    ).toBe('--job is required unless --jobs is set or --list-jobs is true: expected x.')
  })

  it('a with: example becomes the flags, and no ${{ }} expression is left', () => {
    expect(
      word(
        "Set 'branch' to the one to build (for example `branch: main` or `branch: PR-${{ github.event.number }}`)."
      )
    ).toBe(
      'Set --branch to the one to build (for example `--branch main` or `--branch PR-<number>`).'
    )
    expect(word('e.g. `ca-cert: ${{ secrets.JENKINS_CA }}`')).toBe('e.g. `--ca-cert "$JENKINS_CA"`')
    expect(word('(`wait: started`, `log: false`, `log: true`)')).toBe(
      '(`--wait started`, `--no-log`, `--log`)'
    )
  })

  it('leaves alone what is not an input: a longer name, a key of jobs or parameters, a value, a permission', () => {
    const untouched = [
      "Input 'jobs' item 2 has the key 'job' twice",
      "Input 'parameters' value of 'url' is an object",
      "Input 'wait' ('log') must be one of true, started, false."
    ]
    expect(word(untouched[0] ?? '')).toBe("--jobs item 2 has the key 'job' twice")
    expect(word(untouched[1] ?? '')).toBe("--parameters value of 'url' is an object")
    expect(word(untouched[2] ?? '')).toBe("--wait ('log') must be one of true, started, false.")
    // Longest name first: job-token is not read as job; it has its variable, as the other secrets.
    expect(word("Input 'job-token' must not")).toBe('--job-token (or JENKINS_JOB_TOKEN) must not')
    expect(word('needs the `statuses: write` permission')).toBe(
      'needs the `statuses: write` permission'
    )
  })
})
