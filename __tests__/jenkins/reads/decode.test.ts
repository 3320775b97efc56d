import { describe, expect, it } from 'vitest'
import { buildFactsOf } from '../../../src/jenkins/reads/decode.js'

describe('buildFactsOf', () => {
  it('takes the description and display name as Jenkins stores them', () => {
    const facts = buildFactsOf({
      number: 7,
      description: '<b>rc</b>\n::set-output name=x::y',
      displayName: '1.4.2-rc1'
    })
    expect(facts.description).toBe('<b>rc</b>\n::set-output name=x::y')
    expect(facts.displayName).toBe('1.4.2-rc1')
  })

  it('gives an empty description for null, and #N when no display name was read', () => {
    expect(buildFactsOf({ number: 7, description: null })).toMatchObject({
      description: '',
      displayName: '#7'
    })
    // A broken server's other types are not passed on as text.
    expect(buildFactsOf({ number: 7, description: 42, displayName: {} })).toMatchObject({
      description: '',
      displayName: '#7'
    })
  })

  it('keeps parameter values with their JSON type; a file is null, a password left out', () => {
    const facts = buildFactsOf({
      number: 1,
      actions: [
        {},
        { _class: 'hudson.model.CauseAction', causes: [] },
        {
          _class: 'hudson.model.ParametersAction',
          parameters: [
            { _class: 'hudson.model.StringParameterValue', name: 'BRANCH', value: 'main' },
            { _class: 'hudson.model.BooleanParameterValue', name: 'DEBUG', value: true },
            { _class: 'hudson.model.FileParameterValue', name: 'PACKAGE' },
            {
              _class: 'io.jenkins.plugins.file_parameters.Base64FileParameterValue',
              name: 'B64'
            },
            { _class: 'hudson.model.PasswordParameterValue', name: 'SECRET' },
            { _class: 'hudson.model.StringParameterValue', name: 'EMPTY', value: null },
            { name: 5, value: 'no name' }
          ]
        }
      ]
    })
    expect(JSON.stringify(facts.parameters)).toBe(
      '{"BRANCH":"main","DEBUG":true,"PACKAGE":null,"B64":null,"EMPTY":null}'
    )
  })

  it('makes a parameter named __proto__ a key like any other', () => {
    const facts = buildFactsOf({
      number: 1,
      actions: [{ parameters: [{ name: '__proto__', value: { polluted: true } }] }]
    })
    expect(JSON.stringify(facts.parameters)).toBe('{"__proto__":{"polluted":true}}')
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('gives {} without parameters', () => {
    expect(JSON.stringify(buildFactsOf({ number: 1, actions: [] }).parameters)).toBe('{}')
    expect(JSON.stringify(buildFactsOf({ number: 1 }).parameters)).toBe('{}')
  })
})
