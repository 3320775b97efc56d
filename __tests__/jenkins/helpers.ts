import nock from 'nock'
import { afterEach, beforeEach, expect } from 'vitest'
import { JenkinsClient, type ClientOptions } from '../../src/jenkins/client.js'
import { JenkinsError } from '../../src/jenkins/transport/errors.js'
import type { Logger } from '../../src/util/logger.js'

export const ORIGIN = 'https://ci.example.com'
export const BASE = `${ORIGIN}/jenkins`
export const USER = 'alice'
export const TOKEN = 'tok-SECRET-11aa22bb33cc44dd55ee'
export const AUTH = `Basic ${Buffer.from(`${USER}:${TOKEN}`).toString('base64')}`
export const CRUMB = 'crumbSECRETfeedface0123456789abcdef'
export const CRUMB2 = 'crumbSECRETsecondcafe0123456789ab'
export const COOKIE = 'JSESSIONID.1a2b3c4d=node0sessionone'
export const COOKIE2 = 'JSESSIONID.1a2b3c4d=node0sessiontwo'

/**
 * Jenkins' own 404: its /404 page, rendered through the layout, so with
 * X-Jenkins (jenkins-api.md 0, 10). A 404 without it is not from Jenkins
 * (locate.ts), so mocks of Jenkins' 404s carry it: `.reply(...JENKINS_404)`.
 */
export const JENKINS_404 = [
  404,
  '<!DOCTYPE html><html><head><title>Not Found - Jenkins</title></head><body>Oops! Not found.</body></html>',
  { 'Content-Type': 'text/html;charset=UTF-8', 'X-Jenkins': '2.541.1' }
] as const

export interface Recorded {
  level: 'debug' | 'info' | 'warning'
  message: string
}

/** A logger that keeps every line, to assert on what was said (and what was not). */
export function recordingLogger(): Logger & { lines: Recorded[] } {
  const lines: Recorded[] = []
  return {
    lines,
    debug: message => lines.push({ level: 'debug', message }),
    info: message => lines.push({ level: 'info', message }),
    warning: message => lines.push({ level: 'warning', message })
  }
}

export function makeClient(options: Partial<ClientOptions> = {}) {
  const logger = recordingLogger()
  const client = new JenkinsClient({
    url: `${BASE}/`,
    user: USER,
    token: TOKEN,
    logger,
    requestTimeoutMs: 2000,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...options
  })
  return { client, logger }
}

/** The crumb issuer answering once with the given field name, setting a session cookie. */
export function crumbIssuer(field = 'Automation-Crumb', crumb = CRUMB, cookie = COOKIE) {
  return nock(ORIGIN)
    .get('/jenkins/crumbIssuer/api/json')
    .matchHeader('authorization', AUTH)
    .reply(
      200,
      { _class: 'hudson.security.csrf.DefaultCrumbIssuer', crumb, crumbRequestField: field },
      { 'Set-Cookie': `${cookie}; Path=/jenkins; HttpOnly` }
    )
}

/** Awaits a rejection and checks it is a JenkinsError of `kind`. */
export async function jenkinsError(promise: Promise<unknown>, kind: string): Promise<JenkinsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(JenkinsError)
  expect((error as JenkinsError).kind).toBe(kind)
  return error as JenkinsError
}

/** Loopback only; every test must use all its interceptors. */
export function useNock(): void {
  beforeEach(() => {
    nock.disableNetConnect()
    nock.enableNetConnect('127.0.0.1')
  })
  afterEach(() => {
    const pending = nock.pendingMocks()
    nock.cleanAll()
    nock.enableNetConnect()
    expect(pending).toEqual([])
  })
}

/** An error as Node's net layer raises it (nock needs a real Error to emit it). */
export function netError(code: string, message = `${code} (simulated)`): Error {
  return Object.assign(new Error(message), { code })
}
