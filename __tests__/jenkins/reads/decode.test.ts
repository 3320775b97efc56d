import { describe, expect, it } from 'vitest'
import {
  decodeBuild,
  parameterValues,
  type CheckedBuildJson
} from '../../../src/jenkins/reads/decode.js'

/** decodeBuild of a finished build's JSON with these fields. */
function decoded(fields: Record<string, unknown>) {
  return decodeBuild({ result: 'SUCCESS', ...fields } as CheckedBuildJson)
}

/** What the build-parameters output holds for these actions. */
function values(actions?: unknown) {
  return parameterValues(decoded({ number: 1, actions }).parameters)
}

describe('decodeBuild', () => {
  it('keeps counts, leaves out what is not one, and keeps the JSON as it came', () => {
    const json = {
      number: 7,
      result: 'SUCCESS',
      url: 'http://jenkins.internal/job/a/7/',
      building: false,
      duration: 1e21,
      estimatedDuration: -1,
      timestamp: '1700000000000',
      queueId: 12,
      culprits: []
    }
    const build = decodeBuild(json as CheckedBuildJson)
    expect(build).toMatchObject({ number: 7, estimatedDuration: -1, queueId: 12 })
    expect(build).not.toHaveProperty('duration')
    expect(build).not.toHaveProperty('timestamp')
    expect(build.json).toBe(json)
    expect(decoded({ number: 7, duration: 63_000, timestamp: 1 })).toMatchObject({
      duration: 63_000,
      timestamp: 1
    })
  })
})

describe('decodeBuild: what a build says of itself', () => {
  it('takes the description and display name as Jenkins stores them', () => {
    const facts = decoded({
      number: 7,
      description: '<b>rc</b>\n::set-output name=x::y',
      displayName: '1.4.2-rc1'
    })
    expect(facts.description).toBe('<b>rc</b>\n::set-output name=x::y')
    expect(facts.displayName).toBe('1.4.2-rc1')
  })

  it('gives an empty description for null, and #N when no display name was read', () => {
    expect(decoded({ number: 7, description: null })).toMatchObject({
      description: '',
      displayName: '#7'
    })
    // A broken server's other types are not passed on as text.
    expect(decoded({ number: 7, description: 42, displayName: {} })).toMatchObject({
      description: '',
      displayName: '#7'
    })
  })

  it('keeps parameter values with their JSON type; a file is null, a password left out', () => {
    const facts = values([
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
    ])
    expect(JSON.stringify(facts)).toBe(
      '{"BRANCH":"main","DEBUG":true,"PACKAGE":null,"B64":null,"EMPTY":null}'
    )
  })

  it('drops a value Jenkins sends for a password, from the parameters and the JSON alike', () => {
    const json = {
      number: 3,
      result: 'SUCCESS',
      actions: [
        {
          _class: 'hudson.model.ParametersAction',
          parameters: [
            {
              _class: 'hudson.model.PasswordParameterValue',
              name: 'DEPLOY_PASSWORD',
              value: 'hunter2-x'
            },
            { _class: 'hudson.model.StringParameterValue', name: 'API_KEY', value: 'k3y-value' },
            { _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' }
          ]
        }
      ]
    } as CheckedBuildJson
    // API_KEY is a password by the job's definition, whatever its value's class says.
    const build = decodeBuild(json, { passwords: new Set(['API_KEY']) })
    expect(build.parameters).toEqual([
      { name: 'DEPLOY_PASSWORD', password: true },
      { name: 'API_KEY', password: true },
      { name: 'ENV', value: 'prod' }
    ])
    expect(JSON.stringify(parameterValues(build.parameters))).toBe('{"ENV":"prod"}')
    // The `build` output is made of build.json.
    expect(JSON.stringify(build.json)).not.toMatch(/hunter2|k3y-value/)
    expect(JSON.stringify(build.json)).toContain('"name":"ENV","value":"prod"')
  })

  it('makes a parameter named __proto__ a key like any other', () => {
    const facts = values([{ parameters: [{ name: '__proto__', value: { polluted: true } }] }])
    expect(JSON.stringify(facts)).toBe('{"__proto__":{"polluted":true}}')
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('gives {} without parameters', () => {
    expect(JSON.stringify(values([]))).toBe('{}')
    expect(JSON.stringify(values(undefined))).toBe('{}')
  })
})
