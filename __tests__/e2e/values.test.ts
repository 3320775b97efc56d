/**
 * End to end: what the build says of itself (`description`, `display-name`,
 * `build-parameters`) and the `values-file` read into `values`: from JSON
 * and from KEY=VALUE lines, each failure a warning and `{}`, hostile text
 * set exactly and shown inert within the summary's bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sampleJobs, startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES, untilServer } from './helpers.js'

const MiB = 1024 * 1024
const DESCRIPTION =
  '<b>Release</b> candidate <script>alert(1)</script>\n::set-output name=result::FAILURE\n::error::boom %0A##[error]x'
const HOSTILE_KEY = '::error::key%0A<b>k</b>'
// A lone CR is part of the value (only LF and CRLF end a line).
const HOSTILE_VALUE = '::warning::v\r::error::y %0A::error::x <img src=x onerror=alert(1)>'
const BIG = 'x'.repeat(MiB - 4096)
/**
 * Far over the 1 MiB cap, and more than the loopback socket buffers can hold
 * (up to 32 MiB received and 4 MiB sent on Linux): a reader that stops at
 * the cap leaves the answer unfinished, which the server sees. A 3 MiB body
 * could sit whole in those buffers before the reader stops.
 */
const HUGE = 64 * MiB

function job(artifacts: Array<{ path: string; content?: string; size?: number }>) {
  return { script: { durationMs: 50, artifacts } }
}

describe.each(RUNTIMES)('build facts and values ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: {
        described: {
          parameters: [
            { name: 'BRANCH', default: 'main' },
            { name: 'DEBUG', type: 'boolean', default: true },
            { name: 'SECRET', type: 'password', default: 'hunter2' }
          ],
          script: { durationMs: 50, description: DESCRIPTION, displayName: '1.4.2-rc1' }
        },
        plain: { script: { durationMs: 50 } },
        values: job([
          {
            path: 'out/values.json',
            content: '{"version":"1.4.2","n":3,"nested":{"a":[1,true,null]}}'
          },
          {
            path: 'build.env',
            content: '# made by ci\r\nVERSION=1.4.2\r\nIMAGE = repo/app:1 \nQ="a b"\n'
          },
          { path: 'list.json', content: '[1,2]' },
          { path: 'twice.json', content: '{"a":1,"a":2}' },
          { path: 'twice.env', content: 'A=1\nA=2\n' },
          { path: 'noeq.env', content: 'A=1\njust text\n' },
          { path: 'big.env', size: MiB + 1 },
          {
            path: 'hostile.env',
            content: `${HOSTILE_KEY}=${HOSTILE_VALUE}\nBIG=${BIG}\n${'K'.repeat(2000)}=<script>\n`
          }
        ]),
        // Its artifacts come without Content-Length (an aimed fault below).
        chunked: job([
          { path: 'values.json', content: '{"version":"3.1.0"}' },
          { path: 'huge.json', size: HUGE }
        ]),
        failing: {
          script: {
            durationMs: 50,
            result: 'FAILURE',
            artifacts: [{ path: 'v.env', content: 'A=1' }]
          }
        }
      }
    })
  })
  afterAll(() => jenkins.close())

  it('description, display name and parameters as Jenkins has them; the summary shows text', async () => {
    const r = await run(node, {
      ...auth(jenkins),
      job: 'described',
      parameters: 'BRANCH=feature/x'
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.description).toBe(DESCRIPTION)
    expect(r.outputs['display-name']).toBe('1.4.2-rc1')
    expect(r.outputs['build-parameters']).toBe('{"BRANCH":"feature/x","DEBUG":true}')
    expect(r.outputs.result).toBe('SUCCESS')
    // Nothing of it reached the log as a command, and the summary has it as text.
    expect(commands(r.stdout, 'error')).toEqual([])
    expect(commands(r.stdout, 'set-output')).toEqual([])
    expect(r.summary).not.toContain('<b>Release')
    expect(r.summary).not.toContain('<script>')
    // The description's text: tags (and the script's content) gone, the rest escaped as text.
    expect(r.summary).toContain(
      '<tr><th>Description</th><td>Release candidate<br>::set-output name=result::FAILURE<br>::error::boom %0A&#35;&#35;&#91;error&#93;x</td></tr>'
    )
    expect(r.summary).not.toContain('&#60;b&#62;')
    expect(r.summary).not.toContain('alert(1)')
    expect(r.summary).toContain('1.4.2-rc1')
  })

  it('a build without description or parameters: empty, #N and {}', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'plain' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.description).toBe('')
    expect(r.outputs['display-name']).toBe(`#${r.outputs['build-number']}`)
    expect(r.outputs['build-parameters']).toBe('{}')
    expect(r.outputs).not.toHaveProperty('values')
    expect(r.summary).not.toContain('Description')
  })

  it('values from a JSON object, nested values kept, in one capped request', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'values', 'values-file': 'out/values.json' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(JSON.parse(r.outputs.values ?? '')).toEqual({
      version: '1.4.2',
      n: 3,
      nested: { a: [1, true, null] }
    })
    expect(commands(r.stdout, 'warning')).toEqual([])
    const number = r.outputs['build-number']
    expect(
      jenkins.requests.filter(q => q.path === `/job/values/${number}/artifact/out/values.json`)
    ).toHaveLength(1)
    expect(r.summary).toContain('<code>version</code>')
  })

  it('values from KEY=VALUE lines: every value a string, exactly as written', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'values', 'values-file': 'build.env' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.values).toBe('{"VERSION":"1.4.2","IMAGE":" repo/app:1 ","Q":"\\"a b\\""}')
  })

  it('values are read whatever the result', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'failing', 'values-file': 'v.env' })
    expect(r.code).toBe(1)
    expect(r.outputs.result).toBe('FAILURE')
    expect(r.outputs.values).toBe('{"A":"1"}')
  })

  it.each([
    ['missing.json', 'was not archived by the build (404)'],
    ['big.env', 'is larger than 1 MiB, so it was not read'],
    ['list.json', 'is not one JSON object (it holds an array)'],
    ['twice.json', 'has the key "a" twice'],
    ['twice.env', 'has the key "A" twice (line 2)'],
    ['noeq.env', "has no '=' on line 2"]
  ])('%s: one warning that says which, values {}, the verdict the build’s', async (file, says) => {
    const r = await run(node, { ...auth(jenkins), job: 'values', 'values-file': file })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    expect(r.outputs.values).toBe('{}')
    const warnings = commands(r.stdout, 'warning').map(c => c.value)
    expect(warnings).toEqual([
      `The values-file '${file}' of build #${r.outputs['build-number']} of values ${says}: the values output is {}.`
    ])
    // One request for the file, whatever came of it.
    const path = `/job/values/${r.outputs['build-number']}/artifact/${file}`
    expect(jenkins.requests.filter(q => q.path === path)).toHaveLength(1)
  })

  it('values-file-required: a values file that is missing fails the step once the build is reported', async () => {
    const r = await run(node, {
      ...auth(jenkins),
      job: 'values',
      'values-file': 'missing.json',
      'values-file-required': 'true'
    })
    expect(r.code, describeRun(r)).toBe(1)
    // The build is reported as usual: its outputs and summary, then the failure.
    expect(r.outputs.result).toBe('SUCCESS')
    expect(r.outputs.values).toBe('{}')
    expect(r.summary).toContain('<h3>Values</h3>')
    expect(commands(r.stdout, 'warning')).toEqual([])
    expect(commands(r.stdout, 'error').map(c => c.value)).toEqual([
      `The values-file 'missing.json' of build #${r.outputs['build-number']} of values was not archived by the build (404), and values-file-required is true: the values output is {}.`
    ])
  })

  it('a values file sent without Content-Length (chunked): read when small, cut at 1 MiB when not', async () => {
    jenkins.aim({ kind: 'artifact', job: 'chunked', effect: { type: 'chunked' } })
    const small = await run(node, {
      ...auth(jenkins),
      job: 'chunked',
      'values-file': 'values.json'
    })
    expect(small.code, describeRun(small)).toBe(0)
    expect(small.outputs.values).toBe('{"version":"3.1.0"}')
    expect(commands(small.stdout, 'warning')).toEqual([])
    const smallPath = `/job/chunked/${small.outputs['build-number']}/artifact/values.json`
    const smallRead = await untilServer(
      () => jenkins.requests.find(q => q.path === smallPath),
      'the small artifact read'
    )
    expect(smallRead).toMatchObject({ fault: 'chunked', status: 200 })

    const r = await run(node, { ...auth(jenkins), job: 'chunked', 'values-file': 'huge.json' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    expect(r.outputs.values).toBe('{}')
    expect(commands(r.stdout, 'warning').map(c => c.value)).toEqual([
      `The values-file 'huge.json' of build #${r.outputs['build-number']} of chunked is larger than 1 MiB, so it was not read: the values output is {}.`
    ])
    // One request, its answer cut off by the reader: never sent whole.
    const path = `/job/chunked/${r.outputs['build-number']}/artifact/huge.json`
    const read = await untilServer(
      () => jenkins.requests.find(q => q.path === path),
      'the huge artifact read'
    )
    expect(jenkins.requests.filter(q => q.path === path)).toHaveLength(1)
    expect(read).toMatchObject({ fault: 'chunked', status: 0 })
    expect(read.finished).toBeUndefined()
    expect(read.bytes ?? 0).toBeLessThan(HUGE)
  })

  it('hostile keys and values: set exactly, never a command, the summary bounded', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'values', 'values-file': 'hostile.env' })
    expect(r.code, describeRun(r)).toBe(0)
    const values = JSON.parse(r.outputs.values ?? '') as Record<string, string>
    expect(Object.keys(values)).toEqual([HOSTILE_KEY, 'BIG', 'K'.repeat(2000)])
    expect(values[HOSTILE_KEY]).toBe(HOSTILE_VALUE)
    expect(values['BIG']).toBe(BIG)
    expect(commands(r.stdout, 'error')).toEqual([])
    expect(commands(r.stdout, 'warning')).toEqual([])
    expect(r.summary).not.toContain('<img')
    expect(r.summary).not.toContain('<script>')
    expect(r.summary.length).toBeLessThan(20_000)
  })

  it('wait: started reads no values and sets none', async () => {
    const r = await run(node, {
      ...auth(jenkins),
      job: 'values',
      'values-file': 'build.env',
      wait: 'started'
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs).not.toHaveProperty('values')
    expect(r.outputs['display-name']).toBe(`#${r.outputs['build-number']}`)
  })

  it('jobs: each build says its display name, description and values in the summary, as bounded text, whether it passed or not', async () => {
    const r = await run(node, {
      ...auth(jenkins),
      jobs: JSON.stringify([
        { job: 'described' },
        { job: 'values', 'values-file': 'hostile.env' },
        { job: 'plain' },
        { job: 'failing', 'values-file': 'v.env' }
      ])
    })
    expect(r.code, describeRun(r)).toBe(1)
    const builds = JSON.parse(r.outputs.builds ?? '[]') as Array<{
      job: string
      number: number
      url: string
      description: string
      displayName: string
      values: Record<string, string> | null
    }>
    expect(builds.map(b => [b.job, b.description, b.displayName])).toEqual([
      ['described', DESCRIPTION, '1.4.2-rc1'],
      ['values', '', `#${builds[1]?.number}`],
      ['plain', '', `#${builds[2]?.number}`],
      ['failing', '', `#${builds[3]?.number}`]
    ])
    expect(builds[3]?.values).toEqual({ A: '1' })
    const heading = (i: number, result: string) => {
      const b = builds[i] as (typeof builds)[number]
      return `<h3><a href="${b.url}">${b.job} &#35;${b.number}</a>: ${result}</h3>`
    }
    // A section for each build with something to say, passed or failed; none for plain.
    expect(r.summary).toContain(heading(0, 'SUCCESS'))
    expect(r.summary).toContain(heading(1, 'SUCCESS'))
    expect(r.summary).not.toContain(heading(2, 'SUCCESS'))
    expect(r.summary).toContain(heading(3, 'FAILURE'))
    expect(r.summary).toContain('<tr><th>Display name</th><td>1.4.2-rc1</td></tr>')
    expect(r.summary).toContain('<tr><th>Description</th><td>Release candidate<br>')
    expect(r.summary.match(/<h4>Values<\/h4>/g)).toHaveLength(2)
    expect(r.summary).toContain('<tr><td><code>A</code></td><td>1</td></tr>')
    // Jenkins' text is text: no HTML of its own, no workflow command, and the summary bounded.
    for (const html of ['<b>Release', '<b>k', '<script>', '<img']) {
      expect(r.summary).not.toContain(html)
    }
    expect(commands(r.stdout, 'error').map(c => c.value)).toEqual([
      expect.stringMatching(/^1 of 4 Jenkins builds did not pass/)
    ])
    expect(commands(r.stdout, 'set-output')).toEqual([])
    expect(r.summary.length).toBeLessThan(30_000)
  })
})

describe('the sample job release (npm run server): values-file, description and display-name without a script', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({ quietPeriodSec: 0, jobs: sampleJobs })
  })
  afterAll(() => jenkins.close())

  it('gives back its values, its description (as text in the summary) and its display name', async () => {
    const node = RUNTIMES[0]?.path ?? process.execPath
    const r = await run(node, { ...auth(jenkins), job: 'release', 'values-file': 'build.env' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(JSON.parse(r.outputs.values ?? '{}')).toEqual({ VERSION: '1.4.2', CHANNEL: 'beta' })
    expect(r.outputs.description).toBe('<b>1.4.2</b> built from <i>main</i>')
    expect(r.outputs['display-name']).toBe('1.4.2')
    expect(r.summary).toContain('<tr><th>Description</th><td>1.4.2 built from main</td></tr>')
  })
})
