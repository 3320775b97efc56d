/** Input names, exactly as in action.yml. */
export enum Input {
  Url = 'url',
  User = 'user',
  Token = 'token',
  Job = 'job',
  Parameters = 'parameters',
  Files = 'files',
  Wait = 'wait',
  Disable = 'disable',
  Build = 'build',
  ListJobs = 'list-jobs',
  Timeout = 'timeout',
  Accept = 'accept',
  Log = 'log',
  AbortOnCancel = 'abort-on-cancel',
  CommitStatus = 'commit-status',
  GithubToken = 'github-token',
  StatusContext = 'status-context',
  PrComment = 'pr-comment',
  Commit = 'commit',
  PullRequest = 'pull-request',
  /** The job parameter that takes the commit under test. */
  CommitParameter = 'commit-parameter',
  /** The least role a comment command's author needs on the repository. */
  CommentPermission = 'comment-permission',
  Branch = 'branch',
  Scan = 'scan',
  JobToken = 'job-token',
  Headers = 'headers',
  CaCert = 'ca-cert',
  Artifacts = 'artifacts',
  ArtifactsPath = 'artifacts-path',
  Jobs = 'jobs',
  FailFast = 'fail-fast',
  /** An artifact of KEY=VALUE lines or one JSON object, read into the `values` output. */
  ValuesFile = 'values-file',
  /** Whether a values file that cannot be read fails the step (else a warning and `{}`). */
  ValuesFileRequired = 'values-file-required'
}

/** Output names, exactly as in action.yml. */
export enum Output {
  Result = 'result',
  BuildNumber = 'build-number',
  BuildUrl = 'build-url',
  Duration = 'duration',
  QueueUrl = 'queue-url',
  Build = 'build',
  Jobs = 'jobs',
  JobUrl = 'job-url',
  /** Test counts of the build's JUnit report; empty without one. */
  TestsTotal = 'tests-total',
  TestsFailed = 'tests-failed',
  TestsSkipped = 'tests-skipped',
  /** JSON array of the Pipeline's stages: {name, status, durationMillis}. */
  Stages = 'stages',
  /** JSON array of the downloaded artifacts' paths, relative to the workspace. */
  Artifacts = 'artifacts',
  /** With `jobs`: JSON array of {job, number, url, result, duration, queueUrl}, in the order given. */
  Builds = 'builds',
  /** JSON array of the job's last finished builds before this one: {number, result, duration, url}. */
  History = 'history',
  /** The build's description as Jenkins stores it; empty when none. */
  Description = 'description',
  /** The build's display name (`#42`, or what the build set). */
  DisplayName = 'display-name',
  /** JSON object of the parameters the build ran with (name → value). */
  BuildParameters = 'build-parameters',
  /** JSON object read from the `values-file` artifact. */
  Values = 'values',
  /** The commit under test (commit-under-test.ts): the one commit statuses and the pull request comment name. */
  Commit = 'commit'
}

/** Keys saved with core.saveState for the post step. */
export enum State {
  /** Set by the main step, so the second run of the bundle knows it is the post step. */
  IsPost = 'isPost',
  /** 'false' while remote work the step started may still be running and the main step has not dealt with it; 'true' once it did (finished, stopped it, or left it running on purpose). */
  Done = 'done',
  /** URL of the build or queue item the main step left running when it failed for another reason than cancel or timeout. */
  LeftRunning = 'leftRunning',
  /** What Jenkins shows of the step's queue item when it ended there without a build (cancelled, or gone), with its link: nothing runs, the post step has nothing to stop. */
  Ended = 'ended',
  /** With `wait: false` or `started`: the work the main step returned without waiting for, as asked, with its link: it runs on, and the post step leaves it. */
  Returned = 'returned',
  /** JSON array of what the step started and may still run ({job, queueId, number, shared, own}; step/remote-work.ts), for the post step. */
  Builds = 'builds'
}

/** Build results Jenkins reports (hudson.model.Result). */
export const BUILD_RESULTS = ['SUCCESS', 'UNSTABLE', 'FAILURE', 'NOT_BUILT', 'ABORTED'] as const
export type BuildResult = (typeof BUILD_RESULTS)[number]
