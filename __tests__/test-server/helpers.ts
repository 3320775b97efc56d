/** Plain-fetch helpers for the test-server tests. */
import type { TestJenkins } from '../../test-server/index.js'

export const ADMIN = { name: 'admin', password: 'pw-admin', apiToken: 'tok-admin' }

export function basic(user: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64')
}

export const PASSWORD = basic(ADMIN.name, ADMIN.password)
export const TOKEN = basic(ADMIN.name, ADMIN.apiToken)

export interface Session {
  cookie: string
  field: string
  crumb: string
}

/** GET crumbIssuer/api/json with a password (null: anonymously); returns the cookie and crumb it issued. */
export async function crumbSession(
  jenkins: TestJenkins,
  auth: string | null = PASSWORD
): Promise<Session> {
  const res = await fetch(`${jenkins.url}/crumbIssuer/api/json`, {
    headers: auth === null ? {} : { authorization: auth }
  })
  if (res.status !== 200) throw new Error(`crumb: ${res.status}`)
  const setCookie = res.headers.get('set-cookie') ?? ''
  const body = (await res.json()) as { crumb: string; crumbRequestField: string }
  return { cookie: setCookie.split(';')[0] ?? '', field: body.crumbRequestField, crumb: body.crumb }
}

/** A POST authenticated with the API token (exempt from crumbs); no redirect following. */
export function post(
  jenkins: TestJenkins,
  path: string,
  init: { auth?: string; body?: string; headers?: Record<string, string> } = {}
): Promise<Response> {
  const headers: Record<string, string> = { authorization: init.auth ?? TOKEN, ...init.headers }
  if (init.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
  return fetch(`${jenkins.url}${path}`, {
    method: 'POST',
    headers,
    body: init.body,
    redirect: 'manual'
  })
}

export function get(
  jenkins: TestJenkins,
  path: string,
  auth: string | null = TOKEN,
  headers: Record<string, string> = {}
): Promise<Response> {
  return fetch(`${jenkins.url}${path}`, {
    headers: auth === null ? headers : { authorization: auth, ...headers },
    redirect: 'manual'
  })
}

export async function getJson<T = Record<string, unknown>>(
  jenkins: TestJenkins,
  path: string
): Promise<T> {
  const res = await get(jenkins, path)
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`)
  return (await res.json()) as T
}

/** Polls until `check` returns a value other than undefined. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what = 'condition',
  timeoutMs = 10_000
): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise(r => setTimeout(r, 20))
  }
}

export function queueId(location: string | null): number {
  const match = /\/queue\/item\/(\d+)\/$/.exec(location ?? '')
  if (!match) throw new Error(`not a queue Location: ${location}`)
  return Number(match[1])
}
