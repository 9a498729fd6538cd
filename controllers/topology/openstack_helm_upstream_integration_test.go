//go:build integration

package topology

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// upstreamNS is where the upstream operator and the charts' rabbitmq.com
// resources live, apart from the suite's own controllers.
const upstreamNS = "topology-it-upstream"

// The other direction of "either implementation": each chart rendered with
// rabbitmq_topology.api_group=rabbitmq.com applies unchanged, the upstream
// messaging-topology-operator (v1.20.1, out of cluster, webhooks off) makes
// it Ready on the same broker, and the two-group check script verifies it
// (docs/topology.md, "OpenStack-Helm charts").
func TestIntegration_Topology_OpenStackHelmChartsUpstreamOperator(t *testing.T) {
	dir := os.Getenv("ORDERHUB_MTO_DIR")
	if dir == "" {
		t.Fatal("ORDERHUB_MTO_DIR is not set: export it from `hack/tools.sh env` (after hack/tools.sh mto)")
	}
	kubectl := stackKubectl(t)
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: upstreamNS}})
	pod := oshStandIns(t, upstreamNS, "messaging-topology-operator", "messaging-topology-operator")
	env := oshEnv(t, kubectl, upstreamNS, pod, 2*waitTimeout)
	// The operator's CRDs (rabbitmq.com, RabbitmqCluster included) stay
	// installed for the rest of the run; no other test uses that group.
	run(t, env, kubectl, "apply", "--server-side", "-f", filepath.Join(dir, "crds"))
	run(t, env, kubectl, "wait", "--for=condition=Established", "--timeout=60s", "-f", filepath.Join(dir, "crds"))
	upstreamCluster(t)
	startUpstreamOperator(t, filepath.Join(dir, "manager"))
	for _, chart := range oshCharts {
		t.Run(chart, func(t *testing.T) {
			oshApply(t, env, kubectl, upstreamNS, chart+".rabbitmq.com.yaml", chart)
			oshCheck(t, env, "verify-rabbitmq-topology-two-groups.sh", upstreamNS)
			checkOSHBroker(t, chart)
		})
	}
}

// upstreamCluster declares the RabbitmqCluster "rabbitmq" the charts
// reference, as the cluster operator would have left it: status.binding
// names a Secret with the administrator's credentials and
// status.defaultUser.serviceReference is set; the annotation
// rabbitmq.com/operator-connection-uri points the operator at the suite's
// broker (github.com/rabbitmq/messaging-topology-operator,
// rabbitmqclient/cluster_reference.go, ParseReference).
func upstreamCluster(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	r := stack.RabbitMQ
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: upstreamNS, Name: "rabbitmq-default-user",
		Labels: map[string]string{"rabbitmq.com/topology-operator": "true"}},
		StringData: map[string]string{"username": r.User, "password": r.Password}}
	create(t, secret)
	c := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rabbitmq.com/v1beta1", "kind": "RabbitmqCluster",
		"metadata": map[string]any{"namespace": upstreamNS, "name": clusterName,
			"annotations": map[string]any{"rabbitmq.com/operator-connection-uri": r.URL}},
		"spec": map[string]any{"replicas": int64(1)},
	}}
	create(t, c)
	c.Object["status"] = map[string]any{
		"conditions":  []any{},
		"binding":     map[string]any{"name": secret.Name},
		"defaultUser": map[string]any{"serviceReference": map[string]any{"name": clusterName, "namespace": upstreamNS}},
	}
	if err := kube.Status().Update(ctx, c); err != nil {
		t.Fatalf("RabbitmqCluster status: %v", err)
	}
}

// startUpstreamOperator runs the operator's manager out of cluster, for
// upstreamNS only, until the test ends; its output goes to a file named in
// the log.
func startUpstreamOperator(t *testing.T, manager string) {
	t.Helper()
	log, err := os.CreateTemp("", "messaging-topology-operator-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("messaging-topology-operator output: %s", log.Name())
	cmd := exec.Command(manager, "--metrics-bind-address=0", "--health-probe-bind-address=0", "--leader-elect=false")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+stack.Kube.Kubeconfig, "ENABLE_WEBHOOKS=false",
		"OPERATOR_NAMESPACE="+upstreamNS, "OPERATOR_SCOPE_NAMESPACE="+upstreamNS)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = log.Close()
	})
}
