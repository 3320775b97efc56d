#!/usr/bin/env bash
# The steps of .github/workflows/jenkins.yml, by hand: each step runs the
# bundled action (dist/index.js) the way the runner runs `uses: ./`, through
# the jenkins-build command (dist/cli/index.js, the package's bin), and is
# checked with checks.sh. Keep the two in step.
#
#   eval "$(.github/jenkins/start-jenkins.sh jenkins/jenkins:lts)"
#   .github/jenkins/run-checks.sh            # add --plugins after start-jenkins.sh ... --plugins
#
# Needs JENKINS_URL, JENKINS_USER, JENKINS_TOKEN and JENKINS_PASSWORD (what
# start-jenkins.sh prints), npm ci done, dist/ built (npm run build), jq, curl.
# jenkins-build reads JENKINS_URL, JENKINS_USER and JENKINS_TOKEN itself.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
checks="$root/.github/jenkins/checks.sh"
plugins=false
if [ "${1:-}" = --plugins ]; then plugins=true; fi
: "${JENKINS_URL:?} ${JENKINS_USER:?} ${JENKINS_TOKEN:?} ${JENKINS_PASSWORD:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A parameter value a pull request could send: it must reach the build as data.
# shellcheck disable=SC2016 # a literal $(id): it must not run anywhere
odd_branch='pr/7 x;$(id) `id` "q" &a=b'

# step ID FLAG...: the action with these inputs as jenkins-build flags (url,
# user and token from the environment); its outputs go to $tmp/ID.json, its
# outcome (success/failure) to $tmp/ID.outcome.
step() {
  local id=$1
  shift
  echo "=== step $id" >&2
  if (cd "$tmp" && node "$root/dist/cli/index.js" --json "$@") > "$tmp/$id.json"; then
    echo success > "$tmp/$id.outcome"
  else
    echo failure > "$tmp/$id.outcome"
  fi
}
out() { jq -r --arg k "$2" '.[$k] // ""' "$tmp/$1.json"; }
outcome() { cat "$tmp/$1.outcome"; }
check() {
  echo "--- check $*" >&2
  "$checks" "$@"
}

check csrf

step params --job params -p "BRANCH=$odd_branch" -p DEBUG=true -p TARGET=production
check eq outcome "$(outcome params)" success
check eq result "$(out params result)" SUCCESS
check params "$(out params build-url)" "BRANCH=$odd_branch" DEBUG=true TARGET=production
check started-by "$(out params build-url)" "$JENKINS_USER"

# A password needs a crumb bound to the session for the POST (CSRF is on).
JENKINS_TOKEN=$JENKINS_PASSWORD step password --job params -p TARGET=staging
check eq outcome "$(outcome password)" success
check eq result "$(out password result)" SUCCESS
check params "$(out password build-url)" BRANCH=main DEBUG=false TARGET=staging
check started-by "$(out password build-url)" "$JENKINS_USER"

step queued --job hello --no-wait
check eq outcome "$(outcome queued)" success
check set queue-url "$(out queued queue-url)"
check unset build-number "$(out queued build-number)"
check unset result "$(out queued result)"
check queued "$(out queued queue-url)" hello

step started --job hello --wait started
check eq outcome "$(outcome started)" success
check set build-number "$(out started build-number)"
check unset result "$(out started result)"
check building "$(out started build-url)"

step last --job hello --build last
check eq outcome "$(outcome last)" success
check eq build-number "$(out last build-number)" "$(out started build-number)"
check eq result "$(out last result)" SUCCESS

step list --list-jobs
check eq outcome "$(outcome list)" success
expected_jobs=(params hello failing sleepy to-disable)
if [ "$plugins" = true ]; then expected_jobs+=(team/pipeline team/sleepy-pipeline); fi
check jobs "$(out list jobs)" "${expected_jobs[@]}"

step disable --job to-disable --disable
check eq outcome "$(outcome disable)" success
check disabled "$(out disable job-url)"

step failing --job failing
check eq outcome "$(outcome failing)" failure
check eq result "$(out failing result)" FAILURE
check set build-number "$(out failing build-number)"
check result "$(out failing build-url)" FAILURE

step failing-accepted --job failing --accept SUCCESS,FAILURE
check eq outcome "$(outcome failing-accepted)" success
check eq result "$(out failing-accepted result)" FAILURE

step timeout --job sleepy --timeout 20s
check eq outcome "$(outcome timeout)" failure
check unset result "$(out timeout result)"
check aborted "$(out timeout queue-url)"

if [ "$plugins" = true ]; then
  step pipeline --job team/pipeline -p TARGET=prod --accept SUCCESS,UNSTABLE
  check eq outcome "$(outcome pipeline)" success
  check eq result "$(out pipeline result)" UNSTABLE
  check params "$(out pipeline build-url)" TARGET=prod
  check tests "$(out pipeline build-url)" 2 1

  step list-folder --list-jobs --job team
  check eq outcome "$(outcome list-folder)" success
  check jobs "$(out list-folder jobs)" team/pipeline team/sleepy-pipeline

  step pipeline-timeout --job team/sleepy-pipeline --timeout 20s
  check eq outcome "$(outcome pipeline-timeout)" failure
  check aborted "$(out pipeline-timeout queue-url)"
fi

echo "All checks passed against $JENKINS_URL" >&2
