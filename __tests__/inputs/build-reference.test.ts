import { describe, expect, it } from 'vitest'
import { locateReference, parseBuildReference } from '../../src/inputs/build-reference.js'
import { InputError } from '../../src/util/input-error.js'

const BASE = 'https://ci.example.com/jenkins'
const JOB = ['team', 'app']

describe('parseBuildReference', () => {
  it('leaves the named modes to parseBuild', () => {
    for (const mode of ['new', 'last', 'last-successful', 'bogus']) {
      expect(parseBuildReference(mode, BASE, JOB)).toBeUndefined()
    }
  })

  it('reads a build number', () => {
    expect(parseBuildReference('42', BASE, JOB)).toEqual({ kind: 'build', number: 42, text: '42' })
    expect(() => parseBuildReference('0', BASE, JOB)).toThrow(InputError)
    expect(() => parseBuildReference('99999999999999999999', BASE, JOB)).toThrow(
      "Input 'build' ('99999999999999999999') is not a build number"
    )
  })

  it('reads a build URL and a queue URL below url', () => {
    expect(parseBuildReference(`${BASE}/job/team/job/app/42/`, BASE, JOB)).toMatchObject({
      kind: 'build',
      number: 42
    })
    expect(parseBuildReference(`${BASE}/job/team/job/app/42`, BASE, JOB)).toMatchObject({
      number: 42
    })
    expect(parseBuildReference(`${BASE}/queue/item/7/`, BASE, JOB)).toMatchObject({
      kind: 'queue',
      id: 7
    })
  })

  it('refuses another job’s build naming both', () => {
    expect(() => parseBuildReference(`${BASE}/job/team/job/web/42/`, BASE, JOB)).toThrow(
      "is a build of job 'team/web', not of 'team/app' (input 'job')"
    )
  })

  it.each([
    ['42/console'],
    ['42/consoleFull'],
    ['42/changes'],
    ['42/testReport/com.example/CalculatorTest/'],
    ['42/artifact/build/libs/app.jar'],
    ['42/pipeline-overview/'],
    ['42/display/redirect']
  ])('reads a page of a build, as copied from the browser: …/%s', page => {
    expect(parseBuildReference(`${BASE}/job/team/job/app/${page}`, BASE, JOB)).toEqual({
      kind: 'build',
      number: 42,
      text: `${BASE}/job/team/job/app/${page}`
    })
  })

  it("reads the job's lastBuild and lastSuccessfulBuild, and their pages, as those modes", () => {
    expect(parseBuildReference(`${BASE}/job/team/job/app/lastBuild/`, BASE, JOB)).toMatchObject({
      kind: 'latest',
      mode: 'last'
    })
    expect(
      parseBuildReference(`${BASE}/job/team/job/app/lastSuccessfulBuild/console`, BASE, JOB)
    ).toMatchObject({ kind: 'latest', mode: 'last-successful' })
  })

  it('says precisely what to paste for a permalink it cannot follow, a job page, or another page', () => {
    expect(() =>
      parseBuildReference(`${BASE}/job/team/job/app/lastFailedBuild/`, BASE, JOB)
    ).toThrow(
      new InputError(
        `Input 'build' URL ('${BASE}/job/team/job/app/lastFailedBuild/') names lastFailedBuild, a build Jenkins picks anew each time: give \`build: last\` (lastBuild) or \`build: last-successful\` (lastSuccessfulBuild), or that build's own URL, with its number (…/job/NAME/42/).`
      )
    )
    expect(() => parseBuildReference(`${BASE}/job/team/job/app/`, BASE, JOB)).toThrow(
      `Input 'build' URL ('${BASE}/job/team/job/app/') is the job's page, not a build's: paste a build's URL from its page in Jenkins (…/job/NAME/42/, or any page below it such as …/42/console), its lastBuild or lastSuccessfulBuild (…/job/NAME/lastBuild/), or a queue item URL (…/queue/item/7/): expected`
    )
    expect(() =>
      parseBuildReference(`${BASE}/blue/organizations/jenkins/team%2Fapp/detail/app/42/`, BASE, JOB)
    ).toThrow("is not a build URL: paste a build's URL from its page in Jenkins")
    // Another job's lastBuild is another job's.
    expect(() => parseBuildReference(`${BASE}/job/team/job/web/lastBuild/`, BASE, JOB)).toThrow(
      "is a build of job 'team/web', not of 'team/app'"
    )
  })

  it.each([
    [`${BASE}/job/team/job/app/console`, 'is not a build URL'],
    [`${BASE}/job/team/job/app/42/?x=1`, 'has a query or fragment'],
    [`${BASE}/job/team/../app/42/`, "has a '.' or '..' segment"],
    ['https://u:p@ci.example.com/jenkins/job/team/job/app/42/', 'must not contain credentials'],
    ['ftp://ci.example.com/jenkins/queue/item/1/', "must use http or https, not 'ftp'"],
    ['https://[ci.example.com/jenkins/queue/item/1/', 'is not an absolute URL']
  ])('refuses %s: %s', (value, says) => {
    expect(() => parseBuildReference(value, BASE, JOB)).toThrow(says)
  })

  it('leaves a URL on another host or outside the context path to Jenkins’ root URL', () => {
    expect(
      parseBuildReference('https://other.example.com/job/team/job/app/1/', BASE, JOB)
    ).toMatchObject({ kind: 'elsewhere' })
    expect(
      parseBuildReference('https://ci.example.com/other/job/team/job/app/1/', BASE, JOB)
    ).toMatchObject({ kind: 'elsewhere' })
  })
})

describe('locateReference', () => {
  it('reads below the root URL Jenkins writes', () => {
    const url = new URL('https://jenkins.internal:8443/ci/job/team/job/app/3/')
    expect(locateReference(url, 'https://jenkins.internal:8443/ci/', JOB, 'x')).toEqual({
      kind: 'build',
      number: 3,
      text: 'x'
    })
    expect(locateReference(url, 'https://jenkins.internal:8443/other/', JOB, 'x')).toBeUndefined()
    expect(locateReference(url, 'http://jenkins.internal:8443/ci/', JOB, 'x')).toBeUndefined()
  })

  it('keeps a multibranch branch name as its item name', () => {
    const url = new URL(`${BASE}/job/repo/job/feature%252Fx/5/`)
    expect(locateReference(url, BASE, ['repo', 'feature%2Fx'], 'x')).toMatchObject({ number: 5 })
  })
})
