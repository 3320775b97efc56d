/**
 * What the request lifecycle (server.ts) hands the URL binding (routes/): the
 * server's settings and one request in flight. Owned here so that neither
 * imports the other.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ForwardedView } from './forwarded.js'
import type { Params } from './http-util.js'
import type { JsonContext } from './json.js'
import type { JenkinsModel } from '../model/model.js'
import type { Identity, Security, Sessions } from '../model/security.js'
import type { RequestLogEntry } from '../types.js'
import type { UploadStore } from './uploads.js'

/** Settings the routes read; mutable parts change on restart. */
export interface ServerContext {
  contextPath: string
  csrf: boolean
  crumbField: string
  version: string
  /** X-Jenkins-Session: random per process start. */
  instanceSession: string
  tls: boolean
  model: JenkinsModel
  sessions: Sessions
  security: Security
  json: JsonContext
  /** The Pipeline Stage View plugin (`wfapi`) is installed. */
  stageView: boolean
  /** Error pages show the stack trace (ServerOptions.showStackTrace). */
  showStackTrace: boolean
  /** `computer/api/json` shows no build (ServerOptions.executorsHidden). */
  executorsHidden: boolean
  /** Where uploaded files (file parameters) are kept. */
  uploads: UploadStore
}

/** One request that passed the authentication and crumb filters. */
export interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  method: string
  rawPath: string
  rawQuery: string
  /** Decoded path segments below the context path. */
  segments: string[]
  params: Params
  identity: Identity
  /** Scheme, host, port and remote address after Jetty's ForwardedRequestCustomizer. */
  forwarded: ForwardedView
  sessionId: string | undefined
  entry: RequestLogEntry
  ctx: ServerContext
  /** Jetty's error page (sendError): no X-Jenkins headers. */
  jetty(status: number, message: string, headers?: Record<string, string>): void
}
