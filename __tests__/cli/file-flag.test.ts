/** `jenkins-build --file NAME=path`: the `files` input, one line per flag. */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { parseCommandLine, UsageError } from '../../src/cli/args.js'
import { helpText } from '../../src/cli/help.js'

const INPUTS = readActionInputs(join(import.meta.dirname, '..', '..', 'action.yml'))
const parse = (argv: string[]) => parseCommandLine(argv, INPUTS, {})

describe('--file', () => {
  it('repeatable, in either spelling: the files input, one NAME=path line each, in order', () => {
    const line = parse(['--file', 'PACKAGE=dist/app.zip', '--file=NOTES = docs/notes.txt'])
    expect(line.given.files).toBe('PACKAGE=dist/app.zip\nNOTES = docs/notes.txt')
  })

  it('refuses a flag without =, a line break, and --files beside it', () => {
    expect(() => parse(['--file', 'dist/app.zip'])).toThrow(
      new UsageError("--file #1 is not NAME=path (no '=')")
    )
    expect(() => parse(['--file', 'A=a\nB=b'])).toThrow('--file #1 holds a line break')
    expect(() => parse(['--file', 'A=a', '--files', 'B=b'])).toThrow(
      'give either --files or --file, not both'
    )
    expect(() => parse(['--file'])).toThrow('--file needs a value')
  })

  it('is in the help', () => {
    expect(helpText(INPUTS)).toMatch(/--file NAME=PATH +A file for the job's file parameter NAME/)
  })
})
