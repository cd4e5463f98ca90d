# Sourced by scripts/test.sh: runs the steps of a test run as named phases
# and prints, when the run ends (passed, failed or interrupted), a table of
# each phase's wall time and result, so every log shows where the time went.
#
#   phase "release: build" scripts/build.sh release
#
# A phase is one command (a script or a function); it runs in a subshell
# with errexit on, so a failing command inside a function fails the phase.
# The first failing phase ends the run with its exit status.

phase_names=()
phase_seconds=()
phase_results=()
phase_current=""
phase_current_start=0

phase() {
  local name=$1
  shift
  echo "=== $name [$(date -u +%H:%M:%S), ${SECONDS}s in]"
  phase_current=$name
  phase_current_start=$SECONDS
  local rc=0
  set +e
  (set -e; "$@")
  rc=$?
  set -e
  phase_names+=("$name")
  phase_seconds+=($((SECONDS - phase_current_start)))
  phase_current=""
  if ((rc != 0)); then
    phase_results+=("FAILED (exit $rc)")
    exit "$rc"
  fi
  phase_results+=("ok")
}

phase_table() {
  local i total=0
  echo "=== phases (wall time)"
  printf '  %-44s %8s  %s\n' phase seconds result
  for i in "${!phase_names[@]}"; do
    printf '  %-44s %8d  %s\n' "${phase_names[$i]}" "${phase_seconds[$i]}" "${phase_results[$i]}"
    total=$((total + phase_seconds[i]))
  done
  if [[ -n $phase_current ]]; then  # interrupted, or the shell itself failed
    printf '  %-44s %8d  %s\n' "$phase_current" $((SECONDS - phase_current_start)) "did not finish"
    total=$((total + SECONDS - phase_current_start))
  fi
  printf '  %-44s %8d\n' "total" "$total"
}

trap phase_table EXIT
