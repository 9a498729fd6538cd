#!/usr/bin/env bash
# The main job on a fresh machine (make demo builds its binaries first,
# hack/demo-tools.sh): start
# the local stack, and prove each server answers from outside; then
# hack/demo-order.sh starts `orderhub hub`, orders the sample KeystoneService
# and proves it in Keystone. The stack and the hub stay up until `make demo-down`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
eval "$(hack/tools.sh env | sed "s/^/export /")"
hack/stack up
eval "$(hack/stack env)"
k="$ORDERHUB_K8S_DIR/kubectl"
echo
echo "== proving the stack from outside"
echo "-- kube-apiserver: CRDs installed, by API group:"
"$k" get crd -o jsonpath='{range .items[*]}{.spec.group}{"\n"}{end}' | sort | uniq -c | sed 's/^ */   /' 
echo "-- Keystone: a token for the admin (openstack CLI, cloud 'admin'):"
OS_CLOUD=admin openstack token issue -f value -c expires | sed 's/^/   expires /'
echo "-- OpenBao-compatible server: KV v2 write and read:"
printf 'X-Vault-Token: %s\n' "$BAO_TOKEN" | curl -fsS -H @- -X POST -d '{"data":{"hello":"world"}}' "$BAO_ADDR/v1/secret/data/demo/hello" >/dev/null
printf 'X-Vault-Token: %s\n' "$BAO_TOKEN" | curl -fsS -H @- "$BAO_ADDR/v1/secret/data/demo/hello" | python3 -c 'import json,sys; print("   secret/demo/hello =", json.load(sys.stdin)["data"]["data"])'
echo "-- RabbitMQ management API:"
curl -fsS -u "$RABBITMQ_USERNAME:$RABBITMQ_PASSWORD" "$RABBITMQ_URL/api/overview" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("   RabbitMQ", d["rabbitmq_version"], "node", d["node"])'
if [ -x hack/demo-order.sh ]; then
	hack/demo-order.sh
fi
echo
echo "The stack and orderhub hub keep running: eval \"\$(hack/stack env)\" to use them; make demo-down to stop them."
