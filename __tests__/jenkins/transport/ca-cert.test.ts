/**
 * `ca-cert`: CA certificates trusted for one client only, besides Node's
 * defaults; certificate errors that say what to do.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JenkinsClient } from '../../../src/jenkins/client.js'
import { startJenkins, type TestJenkins } from '../../../test-server/index.js'
import { testCertificates, type TestCertificates } from '../../../test-server/http/tls.js'
import { jenkinsError, recordingLogger } from '../helpers.js'

const USER = { name: 'ci', apiToken: 'tok-ci-0123456789ab', permissions: ['admin' as const] }
let dir: string
let certs: TestCertificates
let otherCa: TestCertificates
let jenkins: TestJenkins

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ca-cert-'))
  // The server's certificate names 127.0.0.1 only (not localhost).
  certs = testCertificates(join(dir, 'a'), ['127.0.0.1'])
  otherCa = testCertificates(join(dir, 'b'), ['127.0.0.1'], 'Another CA')
  jenkins = await startJenkins({
    users: [USER],
    tls: { key: certs.key, cert: certs.cert },
    jobs: { hello: {} }
  })
})

afterAll(async () => {
  await jenkins.close()
  rmSync(dir, { recursive: true, force: true })
})

function client(ca: string[] | undefined, url = jenkins.url) {
  return new JenkinsClient({
    url,
    user: USER.name,
    token: USER.apiToken,
    logger: recordingLogger(),
    ca,
    retry: { attempts: 1 }
  })
}

describe('ca-cert', () => {
  it('trusts the given CA for this client', async () => {
    const info = await client([certs.ca]).getJob(['hello'])
    expect(info.name).toBe('hello')
  })

  it('changes nothing process-wide: another request still refuses the certificate', async () => {
    await client([certs.ca]).getJob(['hello'])
    const code = await new Promise<string>(resolve => {
      https
        .get(`${jenkins.url}/login`, res => {
          res.resume()
          resolve(String(res.statusCode))
        })
        .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    })
    expect(code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
  })

  it('without it, the certificate error names ca-cert', async () => {
    const error = await jenkinsError(client(undefined).getJob(['hello']), 'network')
    expect(error.message).toMatch(
      /^TLS error talking to Jenkins at https:\/\/127\.0\.0\.1:\d+: .*If Jenkins uses a private CA, give its certificate in 'ca-cert' \(or point NODE_EXTRA_CA_CERTS at its file\)\./
    )
  })

  it('with the wrong CA, says the certificates in ca-cert do not verify it', async () => {
    const error = await jenkinsError(client([otherCa.ca]).getJob(['hello']), 'network')
    expect(error.message).toMatch(/The certificates in 'ca-cert' do not verify it/)
  })

  it('a certificate for another name: says to use the name it is for, not ca-cert', async () => {
    const url = jenkins.url.replace('127.0.0.1', 'localhost')
    const error = await jenkinsError(client([certs.ca], url).getJob(['hello']), 'network')
    expect(error.message).toMatch(
      /Jenkins' certificate is not for localhost: use in 'url' a host name the certificate names\./
    )
  })
})
