/**
 * The trigger that carries files (upload-trigger.ts, multipart.ts,
 * upload-recovery.ts): the body as Jenkins must read it, what is refused
 * before it is sent, and what a lost answer leads to. Never a second POST.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { afterAll, describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import type { UploadFile } from '../../../src/jenkins/transport/multipart.js'
import { uploadedLine } from '../../../src/jenkins/trigger/upload-trigger.js'
import {
  BASE,
  CRUMB,
  ORIGIN,
  USER,
  crumbIssuer,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

const dir = mkdtempSync(join(tmpdir(), 'upload-trigger-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const content = Buffer.alloc(3 * 1024 * 1024 + 17, 0x5a)
writeFileSync(join(dir, 'app.zip'), content)
const files: UploadFile[] = [
  { name: 'PACKAGE', path: join(dir, 'app.zip'), fileName: 'app.zip', size: content.length }
]

const job = ['deploy']
const JOB_PATH = '/jenkins/job/deploy'
const info: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/deploy/`,
  isFolder: false,
  nextBuildNumber: 7,
  parameterDefinitions: [
    { name: 'PACKAGE', type: 'FileParameterDefinition' },
    { name: 'TARGET', type: 'StringParameterDefinition', defaultValue: 'staging' },
    // A plugin's parameter the client does not know: its values go as given.
    { name: 'REGIONS', type: 'RegionsParameterDefinition', defaultValue: '' }
  ]
}

function trigger() {
  return nock(ORIGIN).post(`${JOB_PATH}/buildWithParameters`).query({ delay: '0sec' })
}

function queue(items: unknown[]) {
  return nock(ORIGIN)
    .get('/jenkins/queue/api/json')
    .query(true)
    .reply(200, { _class: 'hudson.model.Queue', items })
}

function builds(list: unknown[]) {
  return nock(ORIGIN)
    .get(`${JOB_PATH}/api/json`)
    .query(q => typeof q.tree === 'string' && q.tree.startsWith('builds['))
    .reply(200, { builds: list })
}

const queued = (id: number, parameters: unknown[]) => ({
  id,
  task: { url: `${BASE}/job/deploy/`, name: 'deploy' },
  actions: [{ parameters }, { causes: [{ _class: 'hudson.model.Cause$UserIdCause' }] }]
})
const DEFAULTS = [
  { name: 'TARGET', value: 'staging' },
  { name: 'REGIONS', value: '' }
]
const OURS = [
  { name: 'PACKAGE' },
  { name: 'TARGET', value: 'prod' },
  { name: 'REGIONS', value: 'eu,us' }
]

describe('trigger with files', () => {
  it('one multipart POST: exact Content-Length, UTF-8 text parts, a list as one part, the crumb in its header, the file whole', async () => {
    const { client, logger } = makeClient()
    crumbIssuer()
    let body = Buffer.alloc(0)
    let headers: Record<string, string | string[]> = {}
    trigger()
      .matchHeader('automation-crumb', CRUMB)
      .reply(function (_uri, requestBody) {
        headers = this.req.headers
        // nock hands over a body that is valid UTF-8 (this one is) as text.
        body = Buffer.from(requestBody as string, 'utf8')
        return [201, '', { Location: `${BASE}/queue/item/12/` }]
      })
    const result = await client.trigger(
      info,
      job,
      { TARGET: 'prød', REGIONS: ['eu', 'us'], OTHER: 'x' },
      files
    )
    expect(result).toEqual({
      queueId: 12,
      queueUrl: `${BASE}/queue/item/12/`,
      merged: false,
      unknownParameters: ['OTHER']
    })
    expect(Number(headers['content-length'])).toBe(body.length)
    const boundary = /boundary=(.+)$/.exec(String(headers['content-type']))?.[1] ?? ''
    expect(String(headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/)
    const text = body.toString('latin1')
    expect(text).toContain(
      `--${boundary}\r\nContent-Disposition: form-data; name="TARGET"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n${Buffer.from('prød').toString('latin1')}\r\n`
    )
    expect(text).toContain(
      'name="REGIONS"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\neu,us\r\n'
    )
    expect(text).not.toContain('name="OTHER"')
    const head = `Content-Disposition: form-data; name="PACKAGE"; filename="app.zip"\r\nContent-Type: application/octet-stream\r\n\r\n`
    const at = body.indexOf(head) + head.length
    expect(body.subarray(at, at + content.length).equals(content)).toBe(true)
    expect(text.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true)
    expect(logger.lines.map(l => l.message)).toContain(
      "Uploading PACKAGE (app.zip, 3 MiB) to 'deploy': 3 MiB in all."
    )
  }, 20_000)

  it('refuses a NAME that is no file parameter, and a name a part header cannot carry, with nothing sent', async () => {
    const { client } = makeClient()
    const wrong = await jenkinsError(
      client.trigger(info, job, {}, [{ ...files[0]!, name: 'TARGET' }]),
      'bad-request'
    )
    expect(wrong.message).toBe(
      "Input 'files' gives job 'deploy' a file for a parameter that takes none: TARGET is a String parameter, not a file parameter. Its file parameters are PACKAGE. Nothing was triggered."
    )
    const quoted = await jenkinsError(
      client.trigger(
        { ...info, parameterDefinitions: [...info.parameterDefinitions, { name: 'A"B' }] },
        job,
        { 'A"B': 'x' },
        files
      ),
      'bad-request'
    )
    expect(quoted.message).toContain('cannot be sent in a multipart body')
    expect(client.http.requestCounts['total']).toBe(0)
  })

  it('a reset mid-upload with two builds at defaults and no file: names both, touches neither, never resends', async () => {
    const { client } = makeClient({ triggerSettleMs: 1 })
    crumbIssuer()
    trigger().replyWithError(netError('ECONNRESET'))
    queue([
      queued(40, DEFAULTS),
      queued(41, DEFAULTS),
      queued(42, [
        { name: 'TARGET', value: 'dev' },
        { name: 'REGIONS', value: '' }
      ])
    ])
    builds([])
    const error = await jenkinsError(
      client.trigger(info, job, { TARGET: 'prod' }, files),
      'network'
    )
    expect(error.message).toContain("while uploading to job 'deploy'")
    expect(error.message).toContain(
      `cannot be told apart from other triggers: queue item 40 (${BASE}/queue/item/40/), queue item 41 (${BASE}/queue/item/41/). None was touched and nothing was sent again`
    )
    expect(client.http.requestCounts['trigger']).toBe(1)
    expect(client.http.requestCounts['cancel'] ?? 0).toBe(0)
  })

  it('a lost answer after the whole upload: the one queued item with our parameters and the file is followed', async () => {
    const { client, logger } = makeClient({ triggerSettleMs: 1 })
    crumbIssuer()
    trigger().reply(502, 'Bad Gateway')
    queue([queued(50, OURS)])
    builds([])
    const result = await client.trigger(info, job, { TARGET: 'prod', REGIONS: ['eu', 'us'] }, files)
    expect(result).toMatchObject({ queueId: 50, adopted: 'queue', merged: false })
    expect(logger.lines.map(l => l.message)).toContain(
      "Jenkins shows queue item 50 (https://ci.example.com/jenkins/queue/item/50/) of 'deploy' with these parameters and files: following it."
    )
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('a reset and nothing queued: fails without sending again', async () => {
    const { client } = makeClient({ triggerSettleMs: 1 })
    crumbIssuer()
    trigger().replyWithError(netError('ECONNRESET'))
    queue([])
    builds([
      {
        number: 6,
        queueId: 30,
        actions: [{ parameters: DEFAULTS }, { causes: [{ userId: USER }] }]
      }
    ])
    queue([])
    builds([])
    const error = await jenkinsError(client.trigger(info, job, {}, files), 'network')
    expect(error.message).toContain('Jenkins shows no build queued from it')
    expect(error.message).toContain('nothing was sent again')
    expect(client.http.requestCounts['trigger']).toBe(1)
  })
})

describe('uploadedLine', () => {
  const body = { fileBytes: 85_606, length: 86_200 }

  it('an upload too short to measure: its time, and no rate (not "in 0.0 s (5.5 MiB/s)")', () => {
    expect(uploadedLine(body, 15)).toBe('Uploaded 83.6 KiB of files in 15 ms.')
    expect(uploadedLine(body, 0)).toBe('Uploaded 83.6 KiB of files in 0 ms.')
    expect(uploadedLine(body, 999)).toBe('Uploaded 83.6 KiB of files in 999 ms.')
  })

  it('from a second on: the rate of the whole body', () => {
    expect(uploadedLine({ fileBytes: 52_428_800, length: 52_430_000 }, 4_000)).toBe(
      'Uploaded 50 MiB of files in 4 s (12.5 MiB/s).'
    )
  })
})
