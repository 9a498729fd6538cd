#!/usr/bin/env bash
# The demo's order, on the running local stack (hack/demo.sh calls it after
# `hack/stack up`):
#   1. builds bin/orderhub and (re)starts `orderhub hub` in the background, with
#      its admission webhooks self-registered on loopback and SecretStores
#      pointing at the stack's OpenBao-compatible server;
#   2. creates namespace openstack, the admin password Secret keystone-admin and
#      the sample ControlPlane cp (External Keystone = the stack's Keystone);
#   3. applies the sample KeystoneService workflow and waits until it is Ready;
#   4. proves the result from outside: the catalog row and both endpoints in
#      Keystone, a token issued with the delivered clouds.yaml, the OpenBao backup;
#   5. applies the four order samples in namespace tenant-a (user reports, project
#      reports-project, role member on it, application credential
#      reports-appcred), waits until the credential is Ready and issues a token
#      with the delivered application credential.
# Everything keeps running; `make demo-down` stops the hub and the stack.
#
#   hack/demo-order.sh         run the order (the stack must be up)
#   hack/demo-order.sh down    stop the hub started here (by its recorded pid)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
dir=${ORDERHUB_STACK_DIR:-$repo/.stack}
# The pid file sits with the stack's own, in the same "<pid> <match>" form, so
# `hack/stack down` and a restarted stack stop the hub too.
pidfile=$dir/pids/orderhub-hub.pid
bin=$repo/bin/orderhub
ns=openstack

stop_hub() {
	[ -f "$pidfile" ] || return 0
	read -r pid match <"$pidfile" || true
	if [ -n "${pid:-}" ] && tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | grep -qF -- "$match"; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$pid" 2>/dev/null || true
		echo "orderhub hub stopped (pid $pid)"
	fi
	rm -f "$pidfile"
}

if [ "${1:-}" = down ]; then
	stop_hub
	exit 0
fi

eval "$(hack/stack env)"
export KUBECONFIG BAO_ADDR BAO_TOKEN OS_CLIENT_CONFIG_FILE ORDERHUB_KEYSTONE_URL
k=kubectl
admin_password=$(. "$ORDERHUB_OPENRC" && printf %s "$OS_PASSWORD")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
step() { echo; echo "== $*"; }

step "starting orderhub hub"
go build -o "$bin" ./cmd/orderhub
stop_hub
mkdir -p "$dir/pids" "$dir/logs"
# The SecretStores log in with OpenBao's Kubernetes auth (the stack set up the
# auth method, the tenant policy and the role; docs/reference/openbao.md); no
# token is handed to the hub. A token copy an earlier demo left is removed.
$k create namespace orderhub-system --dry-run=client -o yaml | $k apply -f - >/dev/null
$k -n orderhub-system delete secret openbao-token --ignore-not-found >/dev/null
webhook_port=$(free_port)
probe_port=$(free_port)
log=$dir/logs/orderhub-hub.log
setsid env -u BAO_TOKEN -u VAULT_TOKEN "$bin" hub \
	--leader-elect=false \
	--metrics-bind-address=0 \
	--health-probe-bind-address="127.0.0.1:$probe_port" \
	--webhook-url-base="https://127.0.0.1:$webhook_port" \
	--webhook-cert-dir="$dir/hub-webhook-certs" \
	--openbao-address="$BAO_ADDR" \
	--openbao-kv-mount=secret \
	--openbao-auth-mount="$ORDERHUB_OPENBAO_AUTH_MOUNT" \
	--openbao-role="$ORDERHUB_OPENBAO_ROLE" \
	--openbao-service-account="$ORDERHUB_OPENBAO_SERVICE_ACCOUNT" \
	</dev/null >"$log" 2>&1 &
hub_pid=$!
echo "$hub_pid $bin hub" >"$pidfile"
for i in $(seq 1 120); do
	kill -0 "$hub_pid" 2>/dev/null || { echo "orderhub hub exited; last log lines:" >&2; tail -n 30 "$log" >&2; exit 1; }
	curl -fsS "http://127.0.0.1:$probe_port/readyz" >/dev/null 2>&1 && break
	[ "$i" = 120 ] && { echo "orderhub hub not ready after 60 s; see $log" >&2; exit 1; }
	sleep 0.5
done
# The hub registers its webhook configurations by URL once its server runs;
# wait until both call this run's port (a rerun replaces the earlier URL), so
# the applies below go through admission.
for i in $(seq 1 120); do
	urls=$($k get mutatingwebhookconfiguration/orderhub-hub-mutating validatingwebhookconfiguration/orderhub-hub-validating \
		-o jsonpath='{range .items[*]}{.webhooks[0].clientConfig.url}{"\n"}{end}' 2>/dev/null || true)
	[ "$(echo "$urls" | grep -c "^https://127.0.0.1:$webhook_port/")" = 2 ] && break
	[ "$i" = 120 ] && { echo "the hub did not register its webhooks in 60 s; see $log" >&2; exit 1; }
	sleep 0.5
done
echo "   pid $hub_pid, log $log"
echo "   admission webhooks self-registered at https://127.0.0.1:$webhook_port (orderhub-hub-mutating, orderhub-hub-validating)"
echo "   SecretStores -> $BAO_ADDR (KV v2 mount secret), Kubernetes auth $ORDERHUB_OPENBAO_AUTH_MOUNT, role $ORDERHUB_OPENBAO_ROLE, ServiceAccount $ORDERHUB_OPENBAO_SERVICE_ACCOUNT"

step "ControlPlane cp (External Keystone $ORDERHUB_KEYSTONE_URL)"
$k create namespace "$ns" --dry-run=client -o yaml | $k apply -f - >/dev/null
$k -n "$ns" create secret generic keystone-admin --from-file=password=<(printf %s "$admin_password") \
	--dry-run=client -o yaml | $k apply -f - >/dev/null
echo "   Secret $ns/keystone-admin holds the stack's Keystone admin password"
# The sample names a placeholder Keystone; point it at the stack's.
sed "s#^\( *authURL:\).*#\1 $ORDERHUB_KEYSTONE_URL#" config/samples/hub/c5c3_v1alpha1_controlplane.yaml | $k apply -f - | sed 's/^/   /'
$k -n "$ns" wait --for=condition=AdminCredentialReady controlplane/cp --timeout=5m | sed 's/^/   /'

step "KeystoneService workflow (config/samples/hub/c5c3_v1alpha1_keystoneservice.yaml)"
OS_CLOUD=admin openstack role create --or-show service -f value -c name | sed 's/^/   Keystone role present: /'
existed=$($k -n "$ns" get keystoneservice workflow -o name 2>/dev/null || true)
start=$(date +%s.%N)
$k apply -f config/samples/hub/c5c3_v1alpha1_keystoneservice.yaml | sed 's/^/   /'
if ! $k -n "$ns" wait --for=condition=Ready keystoneservice/workflow --timeout=5m | sed 's/^/   /'; then
	$k -n "$ns" get keystoneservice workflow -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}' >&2 || true
	echo "see $log" >&2
	exit 1
fi
end=$(date +%s.%N)
ready_secs=$(python3 -c "print(f'{$end - $start:.1f}')")
if [ -n "$existed" ]; then
	echo "   apply -> Ready in ${ready_secs} s (the order already existed: an earlier run on this stack created it)"
else
	echo "   apply -> Ready in ${ready_secs} s"
fi

step "proving the order from outside"
echo "-- kubectl get keystoneservice -n $ns:"
$k -n "$ns" get keystoneservice | sed 's/^/   /'
echo "-- Keystone catalog row (openstack service show workflow):"
OS_CLOUD=admin openstack service show workflow -f value -c id -c name -c type | paste -sd' ' | sed 's/^/   id name type: /'
echo "-- Keystone endpoints (openstack endpoint list --service workflow):"
endpoints=$(OS_CLOUD=admin openstack endpoint list --service workflow -f value -c Interface -c URL)
echo "$endpoints" | sed 's/^/   /'
for want in "public https://workflow-api.example.com:8989/v2" "internal http://workflow-api.openstack.svc.cluster.local:8989/v2"; do
	echo "$endpoints" | awk '{print $1, $2}' | grep -qxF -- "$want" || { echo "missing endpoint: $want" >&2; exit 1; }
done
echo "-- a token with the delivered clouds.yaml (Secret $ns/workflow-credentials, cloud \"workflow\"):"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$k -n "$ns" get secret workflow-credentials -o jsonpath='{.data.clouds\.yaml}' | base64 -d >"$tmp/clouds.yaml"
(
	unset OS_CLOUD OS_AUTH_URL OS_USERNAME OS_PASSWORD OS_PROJECT_NAME OS_USER_DOMAIN_NAME OS_PROJECT_DOMAIN_NAME
	OS_CLIENT_CONFIG_FILE=$tmp/clouds.yaml openstack --os-cloud workflow token issue -f value -c expires -c project_id -c user_id
) | paste -sd' ' | awk '{print "   token issued: expires " $1 ", project " $2 ", user " $3}'
echo "-- OpenBao backup secret/openstack/keystone/$ns/workflow/service-accounts/credentials (keys only):"
printf 'X-Vault-Token: %s\n' "$BAO_TOKEN" | curl -fsS -H @- "$BAO_ADDR/v1/secret/data/openstack/keystone/$ns/workflow/service-accounts/credentials" |
	python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print("   keys:", ", ".join(sorted(d["data"])), "(version", str(d["metadata"]["version"]) + ")")'

step "Keystone orders in namespace tenant-a: KeystoneUser reports, KeystoneProject reports-project, KeystoneRoleAssignment reports-member, KeystoneApplicationCredential reports-appcred"
tenant=tenant-a
$k create namespace "$tenant" --dry-run=client -o yaml | $k apply -f - >/dev/null
# The aggregated ClusterRoles let a namespace's admins and editors order these
# kinds, as the chart installs them (docs/reference/controlplane.md).
$k apply -f config/rbac/aggregate/order_roles.yaml | sed 's/^/   /'
OS_CLOUD=admin openstack role create --or-show member -f value -c name | sed 's/^/   Keystone role present: /'
start=$(date +%s.%N)
for kind in keystoneproject keystoneuser keystoneroleassignment keystoneapplicationcredential; do
	$k apply -f "config/samples/hub/c5c3_v1alpha1_$kind.yaml" | sed 's/^/   /'
done
if ! $k -n "$tenant" wait --for=condition=Ready keystoneapplicationcredential/reports-appcred --timeout=5m | sed 's/^/   /'; then
	for o in keystoneproject/reports-project keystoneuser/reports keystoneroleassignment/reports-member keystoneapplicationcredential/reports-appcred; do
		echo "   $o:" >&2
		$k -n "$tenant" get "$o" -o jsonpath='{range .status.conditions[*]}      {.type}={.status} {.reason}: {.message}{"\n"}{end}' >&2 || true
	done
	echo "see $log" >&2
	exit 1
fi
end=$(date +%s.%N)
orders_secs=$(python3 -c "print(f'{$end - $start:.1f}')")
echo "   apply -> credential Ready in ${orders_secs} s"
$k -n "$tenant" get keystoneuser,keystoneproject,keystoneroleassignment,keystoneapplicationcredential | sed 's/^/   /'
echo "-- a token with the delivered application credential (Secret $tenant/reports-appcred-credentials, cloud \"reports-appcred\"):"
$k -n "$tenant" get secret reports-appcred-credentials -o jsonpath='{.data.clouds\.yaml}' | base64 -d >"$tmp/appcred.yaml"
(
	unset OS_CLOUD OS_AUTH_URL OS_USERNAME OS_PASSWORD OS_PROJECT_NAME OS_USER_DOMAIN_NAME OS_PROJECT_DOMAIN_NAME
	OS_CLIENT_CONFIG_FILE=$tmp/appcred.yaml openstack --os-cloud reports-appcred token issue -f value -c expires -c project_id -c user_id
) | paste -sd' ' | awk '{print "   token issued: expires " $1 ", project " $2 ", user " $3}'
echo "-- the credential in Keystone (openstack application credential list --user reports):"
OS_CLOUD=admin openstack application credential list --user reports --user-domain Default -f value -c ID -c Name -c "Expires At" 2>/dev/null | sed 's/^/   /' || true

cat <<EOT

== the workflow order is Ready (apply -> Ready ${ready_secs} s); the reports credential order is Ready (${orders_secs} s). Explore:
   eval "\$(hack/stack env)"
   kubectl -n $ns get controlplane,keystoneservice,secretstore,externalsecret
   kubectl -n $ns get keystoneservice workflow -o yaml         # conditions
   kubectl -n $ns get services.openstack.k-orc.cloud,endpoints.openstack.k-orc.cloud,users.openstack.k-orc.cloud
   openstack endpoint list --service workflow                   # OS_CLOUD=admin
   kubectl -n $ns get secret workflow-credentials -o jsonpath='{.data.clouds\.yaml}' | base64 -d
   kubectl -n $tenant get keystoneapplicationcredential reports-appcred -o yaml   # generation, nextRotation
   orderhub hub log: $log
EOT
