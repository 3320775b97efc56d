/**
 * File parameters on buildWithParameters, as Jenkins and Stapler read them
 * (test-server/http/uploads.ts and routes/trigger.ts say where each rule comes from).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type JobSpec, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, TOKEN, get, getJson, queueId, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

const JOBS: Record<string, JobSpec> = {
  deploy: {
    parameters: [
      { name: 'PACKAGE', type: 'file' },
      { name: 'TARGET', default: 'staging' }
    ],
    concurrent: true,
    script: { durationMs: 60_000 }
  },
  pipe: {
    type: 'pipeline',
    parameters: [
      { name: 'B64', type: 'base64File' },
      { name: 'STASHED', type: 'stashedFile' },
      { name: 'CORE', type: 'file' }
    ],
    script: { durationMs: 60_000 }
  },
  'plugin-first': {
    type: 'pipeline',
    parameters: [
      { name: 'B64', type: 'base64File' },
      { name: 'TARGET', default: 'staging' }
    ]
  }
}

async function start(): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    executors: 4,
    jobs: JOBS
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

function upload(server: TestJenkins, job: string, form: FormData): Promise<Response> {
  return fetch(`${server.url}/job/${job}/buildWithParameters?delay=0sec`, {
    method: 'POST',
    headers: { authorization: TOKEN },
    body: form,
    redirect: 'manual'
  })
}

interface Parameter {
  _class: string
  name: string
  value?: unknown
}

async function parametersOfQueued(server: TestJenkins, location: string | null) {
  const id = queueId(location)
  const build = await waitFor(
    () => server.state.queue.find(i => i.id === id)?.build ?? undefined,
    'build'
  )
  const json = await getJson<{ actions: Array<{ parameters?: Parameter[] }> }>(
    server,
    `/job/${build.job.fullName}/${build.number}/api/json`
  )
  return { build, parameters: json.actions.find(a => a.parameters)?.parameters ?? [] }
}

describe('file parameters on buildWithParameters', () => {
  it('stores a core file part under its base name, exports only the name, and serves it at parameter/NAME/NAME', async () => {
    const server = await start()
    const form = new FormData()
    form.append('PACKAGE', new Blob(['zip bytes']), 'dist\\win/app.zip')
    form.append('TARGET', 'prod')
    const res = await upload(server, 'deploy', form)
    expect(res.status).toBe(201)
    const { build, parameters } = await parametersOfQueued(server, res.headers.get('location'))
    expect(parameters).toEqual([
      { _class: 'hudson.model.FileParameterValue', name: 'PACKAGE' },
      { _class: 'hudson.model.StringParameterValue', name: 'TARGET', value: 'prod' }
    ])
    expect(build.parameterValues[0]?.file?.fileName).toBe('app.zip')
    const file = await get(
      server,
      `/job/deploy/${build.number}/parameters/parameter/PACKAGE/PACKAGE`
    )
    expect(file.status).toBe(200)
    expect(await file.text()).toBe('zip bytes')
    const wrong = await get(
      server,
      `/job/deploy/${build.number}/parameters/parameter/PACKAGE/app.zip`
    )
    expect(wrong.status).toBe(404)
  })

  it('decodes a text part without a charset as ISO-8859-1, and one with charset=UTF-8 as UTF-8', async () => {
    const server = await start()
    const plain = new FormData()
    plain.append('PACKAGE', new Blob(['x']), 'a.zip')
    plain.append('TARGET', 'café')
    const mangled = await parametersOfQueued(
      server,
      (await upload(server, 'deploy', plain)).headers.get('location')
    )
    expect(mangled.parameters[1]?.value).toBe(Buffer.from('café', 'utf8').toString('latin1'))
    // FormData gives a field no Content-Type: the field with a charset is made by hand.
    const boundary = 'b0undary'
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="PACKAGE"; filename="a.zip"\r\n\r\nx\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="TARGET"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\ncafé\r\n--${boundary}--\r\n`,
      'utf8'
    )
    const res = await fetch(`${server.url}/job/deploy/buildWithParameters`, {
      method: 'POST',
      headers: {
        authorization: TOKEN,
        'content-type': `multipart/form-data; boundary=${boundary}`
      },
      body,
      redirect: 'manual'
    })
    const utf8 = await parametersOfQueued(server, res.headers.get('location'))
    expect(utf8.parameters[1]?.value).toBe('café')
  })

  it('gives a file parameter sent as a plain field no value, ignores a part the job does not define, and never merges uploads', async () => {
    const server = await start()
    const form = new FormData()
    form.append('PACKAGE', 'not a file part')
    form.append('OTHER', new Blob(['y']), 'other.bin')
    const res = await upload(server, 'deploy', form)
    const { parameters } = await parametersOfQueued(server, res.headers.get('location'))
    expect(parameters).toEqual([
      { _class: 'hudson.model.StringParameterValue', name: 'TARGET', value: 'staging' }
    ])
    const twice = async () => {
      const f = new FormData()
      f.append('B64', new Blob(['same']), 'same.txt')
      return upload(server, 'pipe', f)
    }
    const [a, b] = [await twice(), await twice()]
    expect([a.status, b.status]).toEqual([201, 201])
    expect(queueId(a.headers.get('location'))).not.toBe(queueId(b.headers.get('location')))
  })

  it('serves base64File and stashedFile at parameter/NAME/download, and a core file on a Pipeline not at all (500)', async () => {
    const server = await start()
    const form = new FormData()
    form.append('B64', new Blob(['base64 content']), 'dir/b.txt')
    form.append('STASHED', new Blob(['stashed content']), 's.tgz')
    form.append('CORE', new Blob(['core']), 'c.txt')
    const res = await upload(server, 'pipe', form)
    const { build, parameters } = await parametersOfQueued(server, res.headers.get('location'))
    expect(parameters.map(p => p._class)).toEqual([
      'io.jenkins.plugins.file_parameters.Base64FileParameterValue',
      'io.jenkins.plugins.file_parameters.StashedFileParameterValue',
      'hudson.model.FileParameterValue'
    ])
    expect(build.parameterValues[0]?.file?.fileName).toBe('b.txt')
    const base = `/job/pipe/${build.number}/parameters/parameter`
    expect(await (await get(server, `${base}/B64/download`)).text()).toBe('base64 content')
    expect(await (await get(server, `${base}/STASHED/download`)).text()).toBe('stashed content')
    expect((await get(server, `${base}/CORE/CORE`)).status).toBe(500)
    const job = await getJson<{
      property: Array<{
        parameterDefinitions?: Array<{ type: string; defaultParameterValue: unknown }>
      }>
    }>(server, '/job/pipe/api/json')
    expect(
      job.property[0]?.parameterDefinitions?.map(d => [d.type, d.defaultParameterValue])
    ).toEqual([
      ['Base64FileParameterDefinition', null],
      ['StashedFileParameterDefinition', null],
      ['FileParameterDefinition', null]
    ])
  })

  it('an upload reset mid-way still queues a build, every parameter at its default and no file (Stapler swallows the parse failure)', async () => {
    const server = await start()
    const fault = server.aim({
      kind: 'trigger',
      job: 'deploy',
      effect: { type: 'reset-upload', afterBytes: 2000 }
    })
    const form = new FormData()
    form.append('TARGET', 'prod')
    form.append('PACKAGE', new Blob([Buffer.alloc(1024 * 1024, 1)]), 'big.zip')
    await expect(upload(server, 'deploy', form)).rejects.toThrow()
    expect(fault.hits).toBe(1)
    const builds = await waitFor(() => {
      const list = server.builds('deploy')
      return list.length > 0 ? list : undefined
    }, 'the build from the broken upload')
    expect(builds).toHaveLength(1)
    expect(builds[0]?.parameterValues).toEqual([
      { name: 'TARGET', type: 'string', value: 'staging' }
    ])
  })

  it('an upload reset mid-way queues nothing when a plugin file parameter is the first to parse (its RuntimeException)', async () => {
    const server = await start()
    server.aim({
      kind: 'trigger',
      job: 'plugin-first',
      effect: { type: 'reset-upload', afterBytes: 500 }
    })
    const form = new FormData()
    form.append('B64', new Blob([Buffer.alloc(100_000, 1)]), 'big.bin')
    await expect(upload(server, 'plugin-first', form)).rejects.toThrow()
    await new Promise(r => setTimeout(r, 200))
    expect(server.builds('plugin-first')).toHaveLength(0)
    expect(server.state.queue.filter(i => i.job.fullName === 'plugin-first')).toHaveLength(0)
  })
})
