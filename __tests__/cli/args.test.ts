import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readActionInputs, type ActionInput } from '../../src/cli/action-yml.js'
import { parseCommandLine, STDOUT, stepInputs, UsageError } from '../../src/cli/args.js'
import { helpText } from '../../src/cli/help.js'

const INPUTS = readActionInputs(join(import.meta.dirname, '..', '..', 'action.yml'))
const parse = (argv: string[], env: Record<string, string> = {}) =>
  parseCommandLine(argv, INPUTS, env)

describe('parseCommandLine: one flag per action.yml input', () => {
  it('--name value and --name=value for every input', () => {
    for (const input of INPUTS) {
      expect(parse([`--${input.name}`, 'x y']).given[input.name], input.name).toBe('x y')
      expect(parse([`--${input.name}=a=b`]).given[input.name], input.name).toBe('a=b')
    }
    // A value-taking flag takes the next word even when it starts with a dash.
    expect(parse(['--job', '-odd']).given.job).toBe('-odd')
  })

  it('--summary - means stdout, which --json holds already; --file or --files is remembered as typed', () => {
    expect(parse(['--summary', '-']).summary).toBe(STDOUT)
    expect(() => parse(['--json', '--summary', '-'])).toThrow(
      'give either --json or --summary -, not both: each writes to stdout'
    )
    expect(parse(['--file', 'PKG=a.zip']).fileFlag).toBe('--file')
    expect(parse(['--files', 'PKG=a.zip']).fileFlag).toBe('--files')
    expect(parse(['--job', 'x']).fileFlag).toBeUndefined()
  })

  it('switches (default true/false): alone, --no-, =value, or a word after (--wait started)', () => {
    expect(parse(['--disable', '--json']).given.disable).toBe('true')
    expect(parse(['--no-log']).given.log).toBe('false')
    expect(parse(['--wait=started']).given.wait).toBe('started')
    expect(parse(['--wait', 'started', '--list-jobs']).given).toEqual({
      wait: 'started',
      'list-jobs': 'true'
    })
    expect(parse(['--log']).given.log).toBe('true')
    expect(() => parse(['--no-job'])).toThrow('--no-job: --job is not an on/off input')
    expect(() => parse(['--no-log=x'])).toThrow('--no-log takes no value')
  })

  it('-p NAME=value, repeatable: a JSON object, a repeated name a list, values as written', () => {
    const line = parse([
      '-p',
      'A=1',
      '--param',
      ' B =x=y',
      '-pA=2',
      '--param=C=',
      '-p',
      'D=two\nlines'
    ])
    expect(JSON.parse(line.given.parameters ?? '')).toEqual({
      A: ['1', '2'],
      B: 'x=y',
      C: '',
      D: 'two\nlines'
    })
  })

  it('-p errors name the position, never the value (it may be a secret)', () => {
    expect(() => parse(['-p', 'A=1', '-p', 's3cret'])).toThrow(
      new UsageError("-p #2 is not NAME=value (no '=')")
    )
    expect(() => parse(['-p', ' =v'])).toThrow("-p #1 has an empty NAME before '='")
    expect(() => parse(['-p', 'A=1', '--parameters', 'B=2'])).toThrow(
      'give either --parameters or -p, not both'
    )
  })

  it('JENKINS_URL / JENKINS_USER / JENKINS_TOKEN are defaults; a flag wins', () => {
    const env = { JENKINS_URL: 'http://env', JENKINS_USER: 'u', JENKINS_TOKEN: 't', OTHER: 'x' }
    expect(parse([], env).given).toEqual({ url: 'http://env', user: 'u', token: 't' })
    expect(parse(['--url', 'http://flag'], env).given.url).toBe('http://flag')
    expect(parse([], { JENKINS_URL: '' }).given.url).toBeUndefined()
    expect(parse([], env).warnings).toEqual([])
  })

  it('a token on the command line is warned about, pointing at the variable', () => {
    expect(parse(['--token', 't']).warnings).toEqual([
      '--token on the command line lands in your shell history, and in the process list while this runs; set JENKINS_TOKEN in the environment instead.'
    ])
    expect(parse(['--github-token=t']).warnings[0]).toMatch(/set GITHUB_TOKEN in the environment/)
    expect(parse(['--job-token', 't']).warnings).toEqual([
      '--job-token on the command line lands in your shell history, and in the process list while this runs; set JENKINS_JOB_TOKEN in the environment instead.'
    ])
  })

  it('JENKINS_JOB_TOKEN gives --job-token, as the other secrets have theirs; a flag wins', () => {
    expect(parse([], { JENKINS_JOB_TOKEN: 'jt' }).given).toEqual({ 'job-token': 'jt' })
    expect(parse(['--job-token', 'flag'], { JENKINS_JOB_TOKEN: 'jt' }).given['job-token']).toBe(
      'flag'
    )
    expect(parse([], { JENKINS_JOB_TOKEN: 'jt' }).warnings).toEqual([])
  })

  it('the command own flags, and what it cannot take', () => {
    expect(parse(['--json', '--verbose', '--summary', 's.md', '-h'])).toMatchObject({
      json: true,
      verbose: true,
      summary: 's.md',
      help: true
    })
    expect(parse(['--summary=x.md']).summary).toBe('x.md')
    expect(() => parse(['--jbo', 'x'])).toThrow(/^unknown option --jbo \(did you mean --job\b/)
    expect(() => parse(['--nope'])).toThrow(/^unknown option --nope$/)
    expect(() => parse(['-x'])).toThrow('unknown option -x')
    expect(() => parse(['hello'])).toThrow("unexpected argument 'hello': every input is a flag")
    expect(() => parse(['--job'])).toThrow('--job needs a value')
    expect(() => parse(['--json=yes'])).toThrow('--json takes no value')
  })

  it('an input named like one of the command own flags is refused', () => {
    const clash: ActionInput[] = [{ name: 'json', description: '', default: '', required: false }]
    expect(() => parseCommandLine([], clash, {})).toThrow(
      "action.yml input 'json' clashes with jenkins-build's own --json"
    )
  })
})

describe('stepInputs', () => {
  it('action.yml defaults under what was given; ${{ github.token }} is GITHUB_TOKEN', () => {
    const values = stepInputs(INPUTS, { job: 'j', wait: 'false' }, { GITHUB_TOKEN: 'gh' })
    expect(values).toMatchObject({ job: 'j', wait: 'false', timeout: '3600', 'github-token': 'gh' })
    expect(values.url).toBeUndefined()
    expect(stepInputs(INPUTS, {}, {})['github-token']).toBe('')
  })
})

describe('helpText', () => {
  it('lists every input as a flag with its description, the own flags and the variables', () => {
    const help = helpText(INPUTS, 100)
    const flat = help.replace(/\s+/g, ' ')
    for (const input of INPUTS) {
      expect(help, input.name).toMatch(new RegExp(`^  --(\\[no-\\])?${input.name}\\b`, 'm'))
      expect(flat, input.name).toContain(input.description.replace(/\s+/g, ' ').trim())
    }
    for (const own of [
      '-p, --param NAME=VALUE',
      '--json',
      '--summary FILE',
      '--verbose',
      '--help'
    ]) {
      expect(help).toContain(own)
    }
    expect(flat).toContain('--url URL Jenkins base URL')
    expect(flat).toContain('(required; env JENKINS_URL)')
    expect(flat).toContain('--[no-]wait')
    expect(help).toMatch(/^ {2}JENKINS_TOKEN +The default for --token\.$/m)
    for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100)
  })

  it('a terminal that reports 0 columns still gets the help, a word a line where nothing fits', () => {
    const help = helpText(INPUTS, 0)
    expect(help).toContain('Usage: jenkins-build --url URL --job JOB [flags]')
    expect(help.split('\n')).toContain('Runs')
    expect(help).toContain('--json')
  })
})
