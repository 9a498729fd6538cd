//go:build integration

package topology

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The orderhub binary, configured only through its environment and flags
// (leader election on, namespaced cache), serves a Queue in its namespace.
func TestIntegration_Topology_BinaryServesItsNamespace(t *testing.T) {
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "orderhub")
	build := exec.Command("go", "build", "-o", bin, "./cmd/orderhub")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ns := uniq("topology-bin")
	if err := kube.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	r := stack.RabbitMQ
	cmd := exec.Command(bin, "topology", "--namespace", ns, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+stack.Kube.Kubeconfig,
		"RABBITMQ_HOST="+r.Host, "RABBITMQ_PORT="+strconv.Itoa(r.ManagementPort),
		"RABBITMQ_USERNAME="+r.User, "RABBITMQ_PASSWORD="+r.Password,
		"RABBITMQ_CLUSTER_NAME="+clusterName)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("orderhub topology output:\n%s", logs.String())
		}
	})

	q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "q"},
		Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("bin-q"), RabbitmqClusterReference: ref()}}
	create(t, q)
	waitReady(t, q)
	if _, err := admin.GetQueue("/", q.Spec.Name); err != nil {
		t.Fatalf("queue declared by the binary: %v", err)
	}
	deleteAndWait(t, q)
	if _, err := admin.GetQueue("/", q.Spec.Name); brokerGone(err) != nil {
		t.Fatalf("queue after deletion: %v", err)
	}
}
