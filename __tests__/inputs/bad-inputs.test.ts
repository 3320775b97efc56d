import { describe, expect, test } from 'vitest'
import type { Input } from '../../src/util/constants.js'
import { parseSettings } from '../../src/inputs/inputs.js'
import { InputError } from '../../src/util/input-error.js'
import { actionDefaults } from '../fixtures/action-defaults.js'
import { badInputs, fixtureSecrets, validInputs } from '../fixtures/bad-inputs.js'

function settingsFrom(inputs: Record<string, string>): ReturnType<typeof parseSettings> {
  const merged: Record<string, string> = { ...actionDefaults(), ...validInputs, ...inputs }
  return parseSettings((name: Input) => merged[name] ?? '')
}

function errorFrom(inputs: Record<string, string>): unknown {
  try {
    settingsFrom(inputs)
  } catch (error) {
    return error
  }
  return undefined
}

describe('the bad-input table', () => {
  test('has at least 25 rows with unique names', () => {
    expect(badInputs.length).toBeGreaterThanOrEqual(25)
    expect(new Set(badInputs.map(row => row.name)).size).toBe(badInputs.length)
  })

  test('the valid inputs it starts from are accepted', () => {
    expect(settingsFrom({}).jobName).toBe('folder/job')
  })

  test.each(badInputs)('$name', ({ inputs, error }) => {
    const thrown = errorFrom(inputs)
    expect(thrown).toBeInstanceOf(InputError)
    const message = (thrown as InputError).message
    expect(message).toMatch(error)
    for (const secret of fixtureSecrets) expect(message).not.toContain(secret)
  })
})
