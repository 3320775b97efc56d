export { startJenkins, DEFAULT_USERS } from './server.js'
export { DEFAULT_END_GAP } from './model/build.js'
export { sampleJobs, SAMPLE_NOTES, SAMPLE_WORKSPACE } from './model/sample-jobs.js'
export { generatedBytes, generatedLine, GENERATED_LINE_BYTES, stripNotes } from './model/console.js'
export { mulberry32 } from './model/prng.js'
export { parseTree, pruneTree } from './http/tree.js'
export { startGithub, type GithubOptions, type GithubStandIn } from './github/server.js'
export { GITHUB_ACTIONS_LOGIN, type GithubComment, type GithubIdentity } from './github/model.js'
export type {
  GithubFault,
  GithubFaultEffect,
  GithubFaultHandle,
  GithubRequest
} from './github/faults.js'
export type { GithubRoute, RouteContext } from './github/routes.js'
export type {
  AimedFault,
  AimedFaultHandle,
  EndGap,
  FaultEffect,
  FaultSpec,
  EchoField,
  HostileField,
  HostileSpec,
  JobScript,
  JobSpec,
  ParameterSpec,
  ParameterType,
  Permission,
  RequestKind,
  RequestLogEntry,
  Result,
  ServerOptions,
  StageSpec,
  ArtifactSpec,
  TestCaseSpec,
  TestSuiteSpec,
  TestReportSpec,
  UserSpec
} from './types.js'
export type {
  BuildState,
  Cause,
  JobState,
  ParameterValueState,
  QueueItemState,
  ServerState,
  TestJenkins
} from './model/state.js'
