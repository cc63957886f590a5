# Included in the run.sh that `aptpace plan` writes (verbatim, from templates/plan/verify-plan-set.sh).
# aptpace plan writes its files as one set: `.aptpace-set.plan.json` says `writing` until the last
# file is in, then lists every file with its sha256. A plan killed half way, a file edited by hand
# or a file from another plan would run jobs nobody planned, so the plan is refused instead, naming
# the file. APTPACE_PLAN_UNCHECKED=1 runs it anyway (at your own risk).
aptpace_verify_plan_set() {
  local dir="$1" manifest flat state entries name sum actual count=0
  manifest="$dir/.aptpace-set.plan.json"
  [ "${APTPACE_PLAN_UNCHECKED:-0}" = 1 ] && return 0
  if [ ! -f "$manifest" ]; then
    echo "run.sh: $manifest is missing: this is not a complete plan written by aptpace plan; rerun aptpace plan" >&2
    return 1
  fi
  flat=$(tr -d '\n' < "$manifest")
  state=$(printf '%s' "$flat" | grep -o '"state": *"[a-z]*"' | head -n 1 | sed 's/.*"\([a-z]*\)"$/\1/')
  if ! printf '%s' "$flat" | grep -q '"set": *"plan"'; then
    echo "run.sh: $manifest is not a plan's manifest; rerun aptpace plan" >&2
    return 1
  fi
  if [ "$state" != complete ]; then
    echo "run.sh: $manifest says the plan was being written (state: ${state:-unknown}) when aptpace plan stopped; rerun aptpace plan" >&2
    return 1
  fi
  if command -v sha256sum >/dev/null 2>&1; then
    _aptpace_sha256() { sha256sum < "$1" | cut -d ' ' -f 1; }
  elif command -v shasum >/dev/null 2>&1; then
    _aptpace_sha256() { shasum -a 256 < "$1" | cut -d ' ' -f 1; }
  else
    echo "run.sh: neither sha256sum nor shasum is installed, so the plan in $dir cannot be checked (APTPACE_PLAN_UNCHECKED=1 runs it unchecked)" >&2
    return 1
  fi
  entries=$(printf '%s' "$flat" | grep -o '"[^"]*": *{ *"bytes": *[0-9]*, *"sha256": *"[0-9a-f]*"' | sed 's/^"\([^"]*\)".*"sha256": *"\([0-9a-f]*\)"$/\2 \1/')
  while read -r sum name; do
    [ -n "$name" ] || continue
    count=$((count + 1))
    if [ ! -f "$dir/$name" ]; then
      echo "run.sh: $dir/$name is missing from the plan set listed in $manifest; rerun aptpace plan" >&2
      return 1
    fi
    actual=$(_aptpace_sha256 "$dir/$name")
    if [ "$actual" != "$sum" ]; then
      echo "run.sh: $dir/$name is not the file aptpace plan wrote (edited, or from another plan); rerun aptpace plan" >&2
      return 1
    fi
  done <<< "$entries"
  if [ "$count" = 0 ]; then
    echo "run.sh: $manifest lists no files; rerun aptpace plan" >&2
    return 1
  fi
  return 0
}
