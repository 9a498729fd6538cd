#!/usr/bin/env bash
# Builds only the stack binaries `make demo` runs: the apt packages (Keystone,
# RabbitMQ, the openstack CLI) first, then the Kubernetes control plane, the
# External Secrets controller, the OpenBao-compatible server and K-ORC, longest
# first, ORDERHUB_TOOLS_JOBS at a time (default 2: one build compiles while the
# other downloads; more on machines with more than 4 cores). Each build logs to
# $ORDERHUB_CACHE/logs/<tool>.log; one line per tool says when it is done and
# estimates what is left from the measured cold build times below.
#
#   hack/demo-tools.sh            build what is not cached
#   DRY_RUN=1 hack/demo-tools.sh  print the plan and the progress lines with
#                                 instant stand-in builds (DRY_RUN_COLD=1: as if
#                                 nothing were cached)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
eval "$("$here/tools.sh" env | sed 's/^/export /')"

# Cold build minutes measured on 2 cores (the hack/tools.sh log lines).
declare -A minutes=([k8s]=13 [eso]=12 [vault]=10 [korc]=6)
order=(k8s eso vault korc)
cores=$(nproc 2>/dev/null || echo 2)
jobs=${ORDERHUB_TOOLS_JOBS:-$((cores > 4 ? cores / 2 : 2))}
# The times were measured with each build using both of 2 cores, so the
# estimates count at most cores/2 builds as running side by side.
par=$((cores / 2 > 1 ? cores / 2 : 1))
par=$((par < jobs ? par : jobs))
logs="$ORDERHUB_CACHE/logs"
dry=${DRY_RUN:-}

say() { printf '[demo-tools] %s\n' "$*"; }
fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# todo: the tools of order that are not cached.
todo=()
for t in "${order[@]}"; do
	if [ -z "${DRY_RUN_COLD:-}" ] && "$here/tools.sh" cached "$t"; then continue; fi
	todo+=("$t")
done

# left SECONDS_NOW: the estimated minutes until every unfinished tool is
# built: the rest of each running build and every queued one, spread over par.
left() {
	local sum=0 t
	for t in "${!running[@]}"; do
		local rest=$((minutes[$t] * 60 - ($1 - started[$t])))
		sum=$((sum + (rest > 60 ? rest : 60)))
	done
	for t in "${queue[@]}"; do sum=$((sum + minutes[$t] * 60)); done
	echo $(((sum / par + 59) / 60))
}

if [ ${#todo[@]} -eq 0 ]; then
	say "every binary the demo runs is cached in $ORDERHUB_CACHE/bin"
else
	total=0
	for t in "${todo[@]}"; do total=$((total + minutes[$t])); done
	say "to build: ${todo[*]} ($jobs at a time, logs in $logs); cold estimate ~$(((total + par - 1) / par)) min"
fi
[ -n "$dry" ] || "$here/tools.sh" debs
mkdir -p "$logs"
declare -A running=() started=() pidtool=()
queue=("${todo[@]}")
done_n=0
start_next() {
	local t=${queue[0]}
	queue=("${queue[@]:1}")
	started[$t]=$SECONDS
	running[$t]=1
	if [ -n "$dry" ]; then true & else "$here/tools.sh" "$t" >"$logs/$t.log" 2>&1 & fi
	pidtool[$!]=$t
}
while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	while [ ${#queue[@]} -gt 0 ] && [ ${#running[@]} -lt "$jobs" ]; do start_next; done
	rc=0
	wait -n -p pid || rc=$?
	t=${pidtool[$pid]}
	unset "running[$t]"
	done_n=$((done_n + 1))
	if [ "$rc" -ne 0 ]; then
		say "$t failed after $(fmt $((SECONDS - started[$t]))); its log, $logs/$t.log, ends:"
		tail -n 20 "$logs/$t.log" >&2
		exit 1
	fi
	rest="nothing left"
	if [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; then
		rest=$(printf '%s ' "${!running[@]}" "${queue[@]}")
		rest="left: ${rest% } (~$(left $SECONDS) min)"
	fi
	say "$done_n/${#todo[@]} $t built in $(fmt $((SECONDS - started[$t]))); $rest"
done
