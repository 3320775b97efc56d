#!/usr/bin/env bash
# Starts a throwaway Jenkins in Docker for the action's checks and waits until
# it answers with its API token and the CI jobs.
#
#   .github/jenkins/start-jenkins.sh IMAGE [--plugins]
#
# IMAGE is an official image (jenkins/jenkins:2.150.1, jenkins/jenkins:lts);
# --plugins adds plugins.txt (folders, Pipeline) at image build time.
# Environment (all optional): JENKINS_PORT (8080), JENKINS_CONTAINER
# (jenkins-ci), JENKINS_PASSWORD (random when unset).
#
# In a workflow it masks the password and token and appends JENKINS_URL,
# JENKINS_USER, JENKINS_PASSWORD and JENKINS_TOKEN to $GITHUB_ENV. By hand it
# prints them as export lines: eval "$(.github/jenkins/start-jenkins.sh IMAGE)".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
image=${1:?usage: start-jenkins.sh IMAGE [--plugins]}
plugins=false
if [ "${2:-}" = --plugins ]; then plugins=true; fi
port=${JENKINS_PORT:-8080}
name=${JENKINS_CONTAINER:-jenkins-ci}
user='admin'
password=${JENKINS_PASSWORD:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
url="http://127.0.0.1:${port}/"

log() { echo "start-jenkins: $*" >&2; }

if docker container inspect "$name" > /dev/null 2>&1; then
  log "a container named $name exists already; remove it first: docker rm -f $name"
  exit 1
fi

tag="jenkins-action-ci:$(printf '%s' "$image" | tr -c 'a-zA-Z0-9_.-' '-')"
if [ "$plugins" = true ]; then tag="${tag}-plugins"; fi
log "building $tag from $image (plugins: $plugins)"
# The build's output, jenkins-plugin-cli's included, goes to stderr, so that a
# failed build says why (stdout carries only the export lines). On a runner it
# is fenced off: text downloaded from the update center is no workflow command.
stop="build-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
[ "${GITHUB_ACTIONS:-}" = true ] && echo "::stop-commands::$stop" >&2
built=0
docker build --build-arg "JENKINS_IMAGE=$image" --build-arg "PLUGINS=$plugins" \
  --tag "$tag" "$here" >&2 || built=$?
[ "${GITHUB_ACTIONS:-}" = true ] && echo "::$stop::" >&2
if [ "$built" -ne 0 ]; then
  log "docker build of $tag failed (exit status $built); its output above says why"
  exit "$built"
fi

# The password reaches the container through the environment, not the command line.
CI_JENKINS_USER=$user CI_JENKINS_PASSWORD=$password CI_JENKINS_URL=$url \
  docker run --detach --name "$name" --publish "127.0.0.1:${port}:8080" \
  --env CI_JENKINS_USER --env CI_JENKINS_PASSWORD --env CI_JENKINS_URL "$tag" > /dev/null

# Jenkins-supplied text (its log) must not act as workflow commands on a runner.
show_log() {
  local stop
  stop="log-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  [ "${GITHUB_ACTIONS:-}" = true ] && echo "::stop-commands::$stop"
  docker logs --tail 200 "$name" 2>&1 || true
  [ "${GITHUB_ACTIONS:-}" = true ] && echo "::$stop::"
  return 0
}

# Ready means: the init scripts wrote the token and Jenkins accepts it. The
# first start of the current LTS with plugins takes about a minute.
token=''
version=''
deadline=$((SECONDS + 300))
while :; do
  if [ "$(docker container inspect --format '{{.State.Running}}' "$name")" != true ]; then
    log "the container stopped"
    show_log
    exit 1
  fi
  if [ -z "$token" ]; then
    token=$(docker exec "$name" sh -c 'cat "$JENKINS_HOME/ci/admin.token" 2> /dev/null' || true)
  fi
  if [ -n "$token" ]; then
    headers=$(curl --silent --output /dev/null --dump-header - --max-time 10 --config - "${url}api/json" <<< "user = \"$user:$token\"" || true)
    status_line=${headers%%$'\n'*}
    if [[ $status_line == *' 200'* ]]; then
      version=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Xx]-[Jj]enkins: //p')
      break
    fi
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "Jenkins did not answer with its API token within 300 s"
    show_log
    exit 1
  fi
  sleep 2
done

# The init scripts ran without error only if every job is there.
expected='params hello failing sleepy to-disable'
if [ "$plugins" = true ]; then expected="$expected team"; fi
jobs=$(curl --silent --show-error --fail --max-time 10 --config - "${url}api/json?tree=jobs%5Bname%5D" \
  <<< "user = \"$user:$token\"" | jq -r '.jobs[].name')
for job in $expected; do
  if ! printf '%s\n' "$jobs" | grep -qxF "$job"; then
    log "job $job is missing: an init.groovy.d script failed"
    show_log
    exit 1
  fi
done

log "Jenkins ${version:-(unknown version)} is ready at $url (user $user)"
if [ -n "${GITHUB_ENV:-}" ]; then
  echo "::add-mask::$password"
  echo "::add-mask::$token"
  {
    echo "JENKINS_URL=$url"
    echo "JENKINS_USER=$user"
    echo "JENKINS_PASSWORD=$password"
    echo "JENKINS_TOKEN=$token"
  } >> "$GITHUB_ENV"
else
  printf 'export JENKINS_URL=%q JENKINS_USER=%q JENKINS_PASSWORD=%q JENKINS_TOKEN=%q\n' \
    "$url" "$user" "$password" "$token"
fi
