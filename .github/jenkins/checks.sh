#!/usr/bin/env bash
# Checks of what the action did, read back from Jenkins with curl and jq.
# Used by .github/workflows/jenkins.yml and by run-checks.sh; runnable alone:
#
#   .github/jenkins/checks.sh CHECK ARGS...
#
#   eq LABEL ACTUAL EXPECTED        a value (an output) is what was expected
#   set LABEL VALUE                 a value is not empty
#   unset LABEL VALUE               a value is empty
#   result BUILD_URL RESULT         the build ends with RESULT (waits for the end)
#   params BUILD_URL NAME=VALUE...  the build has these parameters, and its
#                                   console has each NAME=VALUE as a line
#   started-by BUILD_URL USER       the build was started by USER
#   building BUILD_URL              the build is running now
#   queued QUEUE_URL JOB            the queue item is JOB's; waits for its build
#                                   to start and prints the build's URL
#   aborted QUEUE_URL               the queue item's build ends ABORTED
#   disabled JOB_URL                the job is disabled
#   jobs JSON NAME...               the JSON array of job names holds each NAME
#   tests BUILD_URL TOTAL FAILED    the build's test counts
#   csrf                            CSRF protection is on: a password POST without
#                                   a crumb is refused with 403
#   logs                            shows the end of the Jenkins container's log
#
# Needs JENKINS_URL, JENKINS_USER and JENKINS_TOKEN (an API token); csrf also
# JENKINS_PASSWORD. Credentials go only to URLs under JENKINS_URL, through
# curl's standard input rather than its command line.
set -euo pipefail
# A failed request inside $(...) must end the check, not be polled for minutes.
shopt -s inherit_errexit

fail() {
  echo "check failed: $*" >&2
  exit 1
}

# Jenkins-supplied text (consoles, logs, JSON) must not act as workflow commands.
show() {
  local stop
  stop="checks-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::stop-commands::$stop"; fi
  cat
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::$stop::"; fi
}

base=${JENKINS_URL:-}

# A curl config line for Basic auth: the secret stays off curl's command line.
curl_user() {
  local v="$1:$2"
  v=${v//\\/\\\\}
  v=${v//\"/\\\"}
  printf 'user = "%s"\n' "$v"
}

# GET with the API token; fails on HTTP errors. --globoff: tree=a[b] is not a curl range.
get() {
  local url=$1 secret=${2:-${JENKINS_TOKEN:?JENKINS_TOKEN is not set}}
  case $url in
    "${base:?JENKINS_URL is not set}"*) ;;
    *) fail "$url is not under JENKINS_URL ($base); not sending credentials there" ;;
  esac
  curl --silent --show-error --fail --globoff --max-time 30 --config - "$url" \
    <<< "$(curl_user "${JENKINS_USER:?JENKINS_USER is not set}" "$secret")"
}

api() { get "${1%/}/api/json${2:-}"; }

# Prints the build's JSON once it has ended (bounded: the longest build here is 20 s).
ended() {
  local url=$1 json deadline=$((SECONDS + 180))
  while :; do
    json=$(api "$url")
    if [ "$(jq -r '.building' <<< "$json")" = false ]; then
      printf '%s\n' "$json"
      return
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail "$url still running after 180 s"
    sleep 2
  done
}

console_has_line() {
  local url=$1 line=$2 text
  text=$(get "${url%/}/consoleText" | tr -d '\r')
  if ! grep -qxF -- "$line" <<< "$text"; then
    echo "console of $url (last 40 lines):" >&2
    tail -n 40 <<< "$text" | show >&2
    fail "no console line '$line' in $url"
  fi
}

# The build behind a queue item, once it has left the queue.
queue_build() {
  local url=$1 json deadline=$((SECONDS + 120))
  while :; do
    json=$(api "$url")
    if [ "$(jq -r '.cancelled // false' <<< "$json")" = true ]; then
      fail "queue item $url was cancelled before its build started"
    fi
    local build
    build=$(jq -r '.executable.url // empty' <<< "$json")
    if [ -n "$build" ]; then
      printf '%s\n' "$build"
      return
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail "queue item $url has no build after 120 s"
    sleep 1
  done
}

check=${1:-}
if [ $# -gt 0 ]; then shift; fi
case $check in
  eq)
    [ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"
    ;;
  set)
    [ -n "$2" ] || fail "$1 is empty"
    ;;
  unset)
    [ -z "$2" ] || fail "$1 is '$2', expected empty"
    ;;
  result)
    actual=$(ended "$1" | jq -r '.result')
    [ "$actual" = "$2" ] || fail "$1 ended $actual, expected $2"
    ;;
  params)
    url=$1
    shift
    json=$(ended "$url")
    for pair in "$@"; do
      name=${pair%%=*}
      value=${pair#*=}
      actual=$(jq -r --arg n "$name" \
        '[.actions[]? | .parameters[]? | select(.name == $n) | .value | tostring] | first // "(missing)"' <<< "$json")
      [ "$actual" = "$value" ] || fail "parameter $name of $url is '$actual', expected '$value'"
      console_has_line "$url" "$pair"
    done
    ;;
  started-by)
    api "$1" | jq -e --arg u "$2" 'any(.actions[]? | .causes[]?; .userId == $u)' > /dev/null ||
      fail "$1 was not started by $2"
    ;;
  building)
    [ "$(api "$1" | jq -r '.building')" = true ] || fail "$1 is not running"
    ;;
  queued)
    task=$(api "$1" | jq -r '.task.name // empty')
    [ "$task" = "$2" ] || fail "queue item $1 is for '$task', expected '$2'"
    queue_build "$1"
    ;;
  aborted)
    build=$(queue_build "$1")
    actual=$(ended "$build" | jq -r '.result')
    [ "$actual" = ABORTED ] || fail "$build ended $actual, expected ABORTED"
    echo "$build ended ABORTED"
    ;;
  disabled)
    json=$(api "$1")
    [ "$(jq -r '.color' <<< "$json")" = disabled ] || fail "$1 is not disabled (color $(jq -r '.color' <<< "$json"))"
    [ "$(jq -r '.buildable' <<< "$json")" = false ] || fail "$1 is still buildable"
    ;;
  jobs)
    list=$1
    shift
    jq -e 'type == "array"' <<< "$list" > /dev/null || fail "not a JSON array: $list"
    for name in "$@"; do
      jq -e --arg n "$name" 'any(.[]; . == $n)' <<< "$list" > /dev/null ||
        fail "'$name' is not in the job list $list"
    done
    ;;
  tests)
    # Test counts are not exported at depth 0 (jenkins-api.md 5.5): ask with a tree.
    counts=$(ended "$1" > /dev/null && api "$1" '?tree=actions[failCount,totalCount]' |
      jq -r '[.actions[]? | select(.totalCount != null)] | first | "\(.totalCount) \(.failCount)"')
    [ "$counts" = "$2 $3" ] || fail "$1 has tests (total failed) '$counts', expected '$2 $3'"
    ;;
  csrf)
    issuer=$(api "${base}crumbIssuer" | jq -r '.crumbRequestField // empty')
    [ -n "$issuer" ] || fail "no crumb issuer"
    # Jenkins checks the crumb before it looks the job up (jenkins-api.md 0):
    # 403 proves the check; 404 would mean CSRF protection is off.
    status=$(curl --silent --output /dev/null --write-out '%{http_code}' --max-time 30 \
      --request POST --config - "${base}job/no-such-job/build" \
      <<< "$(curl_user "$JENKINS_USER" "${JENKINS_PASSWORD:?JENKINS_PASSWORD is not set}")")
    [ "$status" = 403 ] || fail "a password POST without a crumb got $status, expected 403"
    echo "CSRF on (crumb header $issuer)"
    ;;
  logs)
    docker logs --tail 300 "${JENKINS_CONTAINER:-jenkins-ci}" 2>&1 | show
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
