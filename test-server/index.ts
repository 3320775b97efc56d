export { startJenkins, DEFAULT_USERS } from './server.js'
export { DEFAULT_END_GAP } from './build.js'
export { sampleJobs } from './sample-jobs.js'
export { generatedBytes, generatedLine, GENERATED_LINE_BYTES, stripNotes } from './console.js'
export { mulberry32 } from './prng.js'
export { parseTree, pruneTree } from './tree.js'
export type {
  AimedFault,
  AimedFaultHandle,
  BuildState,
  Cause,
  EndGap,
  FaultEffect,
  FaultSpec,
  HostileField,
  HostileSpec,
  JobScript,
  JobSpec,
  JobState,
  ParameterSpec,
  ParameterType,
  ParameterValueState,
  Permission,
  QueueItemState,
  RequestKind,
  RequestLogEntry,
  Result,
  ServerOptions,
  ServerState,
  StageSpec,
  ArtifactSpec,
  TestCaseSpec,
  TestSuiteSpec,
  TestReportSpec,
  TestJenkins,
  UserSpec
} from './types.js'
