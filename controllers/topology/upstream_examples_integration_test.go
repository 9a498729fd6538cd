//go:build integration

package topology

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// upstreamModule is the messaging-topology-operator release whose
// docs/examples the example tests apply (docs/topology.md, "Compatibility
// with the upstream operator").
const upstreamModule = "github.com/rabbitmq/messaging-topology-operator@v1.20.1"

// upstreamExampleClusters are the RabbitmqCluster names upstream's examples
// reference; they are mapped to the suite's clusterName.
var upstreamExampleClusters = []string{"test", "example-rabbit", "billing"}

// decodeDocuments splits a multi-document YAML file into objects, skipping
// empty documents.
func decodeDocuments(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatal(err)
		}
		if len(u.Object) != 0 {
			objs = append(objs, u)
		}
	}
}

// upstreamVersions are the API versions of upstream's kinds served here:
// rabbitmq.com/v1beta1 and, for SuperStream, rabbitmq.com/v1alpha1.
var upstreamVersions = []string{"rabbitmq.com/v1beta1", "rabbitmq.com/v1alpha1"}

// upstreamExamplesDir is docs/examples of upstreamModule in the Go module
// cache (go mod download).
func upstreamExamplesDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", upstreamModule)
	cmd.Dir = t.TempDir() // outside this module: its go.sum stays as it is
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", upstreamModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v, %s", upstreamModule, err, out)
	}
	return filepath.Join(mod.Dir, "docs", "examples")
}

// upstreamExamples reads the file of dir and changes only what
// docs/topology.md ("Compatibility with the upstream operator") allows:
// apiVersion rabbitmq.com/v1beta1 (or v1alpha1) becomes this API group's, the
// RabbitmqCluster of upstreamExampleClusters becomes the suite's cluster, and each object gets
// the suite's namespace.
func upstreamExamples(t *testing.T, dir, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeDocuments(t, data)
	for _, u := range objs {
		if slices.Contains(upstreamVersions, u.GetAPIVersion()) {
			u.SetAPIVersion(rmqv1.GroupVersion.String())
		}
		if name, ok, _ := unstructured.NestedString(u.Object, "spec", "rabbitmqClusterReference", "name"); ok {
			if !slices.Contains(upstreamExampleClusters, name) {
				t.Fatalf("%s: %s %s references cluster %q, not one of %q", file, u.GetKind(), u.GetName(), name, upstreamExampleClusters)
			}
			_ = unstructured.SetNestedField(u.Object, clusterName, "spec", "rabbitmqClusterReference", "name")
		}
		u.SetNamespace(suiteNS)
	}
	return objs
}

// filesWithKind lists the YAML files under dir (relative) holding a
// rabbitmq.com document of kind.
func filesWithKind(t *testing.T, dir, kind string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, u := range decodeDocuments(t, data) {
			if slices.Contains(upstreamVersions, u.GetAPIVersion()) && u.GetKind() == kind {
				rel, _ := filepath.Rel(dir, path)
				out = append(out, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// applyUpstreamExamples creates every document of the files, in order, and
// returns them by kind and name. It fails unless the files include every
// upstream example of kind.
func applyUpstreamExamples(t *testing.T, kind string, files ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	dir := upstreamExamplesDir(t)
	for _, f := range filesWithKind(t, dir, kind) {
		if !slices.Contains(files, f) {
			t.Fatalf("upstream example %s holds a %s the test does not apply", f, kind)
		}
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		for _, u := range upstreamExamples(t, dir, f) {
			create(t, u)
			byName[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	return byName
}

// waitReadyNamed waits for the Ready of the typed obj named name in suiteNS.
func waitReadyNamed(t *testing.T, obj object, name string) {
	t.Helper()
	obj.SetNamespace(suiteNS)
	obj.SetName(name)
	waitReady(t, obj)
}

// topicPermissionsOf returns the user's topic permissions in vhost by
// exchange, as the broker lists them (none: it answers 404).
func topicPermissionsOf(vhost, user string) (map[string][2]string, error) {
	listed, err := admin.GetTopicPermissionsIn(vhost, user)
	if rabbitmq.IsNotFound(err) {
		return map[string][2]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for _, p := range listed {
		out[p.Exchange] = [2]string{p.Write, p.Read}
	}
	return out, nil
}

// Upstream's docs/examples/topic-exchanges apply with only apiVersion (and
// the cluster name) changed: both TopicPermissions, by user and by
// userReference, become Ready, the broker lists the user's topic
// permissions on both exchanges with upstream's patterns, and deleting one
// TopicPermission removes its exchange's entry only.
func TestIntegration_Topology_UpstreamExamples_TopicPermission(t *testing.T) {
	t.Cleanup(func() { _, _ = admin.DeleteUser("example") })
	objs := applyUpstreamExamples(t, "TopicPermission", "topic-exchanges/user.yaml",
		"topic-exchanges/topic-exchanges.yaml", "topic-exchanges/user-topic-permissions.yaml")
	waitReadyNamed(t, &rmqv1.User{}, "topic-exchange-example")
	for _, name := range []string{"permission-example-a", "permission-example-b"} {
		waitReadyNamed(t, &rmqv1.TopicPermission{}, name)
	}
	want := map[string][2]string{"topic-a": {".*", ".*"}, "topic-b": {".*", ".*"}}
	got, err := topicPermissionsOf("/", "example")
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("topic permissions of user example in vhost /: %v, %v; want %v", got, err, want)
	}

	deleteAndWait(t, objs["TopicPermission/permission-example-a"])
	got, err = topicPermissionsOf("/", "example")
	if want := map[string][2]string{"topic-b": {".*", ".*"}}; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after deleting permission-example-a: %v, %v; want %v", got, err, want)
	}
	deleteAndWait(t, objs["TopicPermission/permission-example-b"])
	if got, err = topicPermissionsOf("/", "example"); err != nil || len(got) != 0 {
		t.Fatalf("after deleting both: %v, %v; want none", got, err)
	}
}

// Upstream's docs/examples/operator-policies applies with only apiVersion
// (and the cluster name) changed: the OperatorPolicy becomes Ready, the
// broker holds the operator policy with upstream's pattern, applyTo and
// definition, and deleting the resource deletes it.
func TestIntegration_Topology_UpstreamExamples_OperatorPolicy(t *testing.T) {
	objs := applyUpstreamExamples(t, "OperatorPolicy", "operator-policies/operator-policy.yaml")
	waitReadyNamed(t, &rmqv1.OperatorPolicy{}, "operator-policy-example")
	p, err := admin.GetOperatorPolicy("/", "my-operator-policy")
	if err != nil {
		t.Fatal(err)
	}
	if p.Pattern != "^abc" || p.ApplyTo != "queues" || p.Priority != 0 || fmt.Sprint(p.Definition) != "map[expires:1.8e+06]" {
		t.Fatalf("operator policy in the broker: %+v", p)
	}
	deleteAndWait(t, objs["OperatorPolicy/operator-policy-example"])
	if _, err := admin.GetOperatorPolicy("/", "my-operator-policy"); brokerGone(err) != nil {
		t.Fatalf("the operator policy after the resource's deletion: %v", err)
	}
}

// Upstream's docs/examples/shovels applies with only apiVersion (and the
// cluster name) changed, but for the URIs its shovel-secret.yaml leaves
// for the reader to fill in: the suite's broker, vhosts source and
// destination. The Shovel becomes Ready and the broker holds the shovel
// with upstream's queues, consumer arguments and publish properties;
// deletionPolicy retain (the example's) keeps it when the resource is
// deleted, delete removes it.
func TestIntegration_Topology_UpstreamExamples_Shovel(t *testing.T) {
	dir := upstreamExamplesDir(t)
	secret := upstreamExamples(t, dir, "shovels/shovel-secret.yaml")[0]
	uri := func(vhost string) string {
		return fmt.Sprintf("amqp://%s:%s@127.0.0.1:%d/%s", stack.RabbitMQ.User, stack.RabbitMQ.Password, stack.RabbitMQ.AMQPPort, vhost)
	}
	delete(secret.Object, "data")
	secret.Object["stringData"] = map[string]any{"srcUri": uri("source"), "destUri": uri("destination")}
	create(t, secret)
	objs := applyUpstreamExamples(t, "Shovel", "shovels/vhosts.yaml", "shovels/queues.yaml", "shovels/shovel.yaml")
	waitReadyNamed(t, &rmqv1.Shovel{}, "shovel-example")
	s, err := admin.GetShovel("/", "shovel-example")
	if err != nil {
		t.Fatal(err)
	}
	d := s.Definition
	if fmt.Sprint(d.SourceURI) != fmt.Sprint([]string{uri("source")}) || fmt.Sprint(d.DestinationURI) != fmt.Sprint([]string{uri("destination")}) ||
		d.SourceQueue != "source-queue" || d.DestinationQueue != "destination-queue" ||
		fmt.Sprint(d.SourceConsumerArgs) != "map[x-priority:10]" || fmt.Sprint(d.DestinationPublishProperties) != "map[delivery_mode:2]" {
		t.Fatalf("shovel in the broker: %+v", d)
	}

	// A change of the Secret re-declares the shovel (the Secret watch).
	both := uri("destination") + "," + uri("source")
	if err := kube.Patch(bg, secret, client.RawPatch(types.MergePatchType,
		[]byte(fmt.Sprintf(`{"stringData":{"destUri":%q}}`, both)))); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the shovel has the Secret's new destination URIs", func() error {
		s, err := admin.GetShovel("/", "shovel-example")
		if err != nil {
			return err
		}
		if got := strings.Join(s.Definition.DestinationURI, ","); got != both {
			return fmt.Errorf("dest-uri %s", got)
		}
		return nil
	})

	kept := objs["Shovel/shovel-example"].DeepCopy()
	deleteAndWait(t, kept)
	if _, err := admin.GetShovel("/", "shovel-example"); err != nil {
		t.Fatalf("the shovel after deleting a Shovel with deletionPolicy retain: %v", err)
	}
	again := upstreamExamples(t, dir, "shovels/shovel.yaml")[0]
	_ = unstructured.SetNestedField(again.Object, "delete", "spec", "deletionPolicy")
	create(t, again)
	waitReadyNamed(t, &rmqv1.Shovel{}, "shovel-example")
	deleteAndWait(t, again)
	if _, err := admin.GetShovel("/", "shovel-example"); brokerGone(err) != nil {
		t.Fatalf("the shovel after deleting a Shovel with deletionPolicy delete: %v", err)
	}
}

// Upstream's docs/examples/federations applies with only apiVersion (and
// the cluster name) changed, but for the URI its federation-uri.yaml leaves
// for the reader to fill in: the suite's broker, vhost upstream. The
// Federation reaches Ready (kubectl wait --for=condition=Ready), the broker
// holds the federation upstream origin in vhost downstream with the
// example's URI and ack mode, and federation works: a message published to
// the upstream vhost's fanout exchange reaches downstream-queue.
// deletionPolicy retain (the example's) keeps the upstream when the
// resource is deleted, delete removes it.
func TestIntegration_Topology_UpstreamExamples_Federation(t *testing.T) {
	dir := upstreamExamplesDir(t)
	secret := upstreamExamples(t, dir, "federations/federation-uri.yaml")[0]
	delete(secret.Object, "data")
	secret.Object["stringData"] = map[string]any{FederationSecretKeyURI: amqpURI("upstream")}
	create(t, secret)
	objs := applyUpstreamExamples(t, "Federation", "federations/vhosts.yaml", "federations/queues.yaml",
		"federations/exchanges.yaml", "federations/bindings.yaml", "federations/policy.yaml", "federations/federation.yaml")
	kubectl := stackKubectl(t)
	env := append(os.Environ(), "KUBECONFIG="+stack.Kube.Kubeconfig, "KUBECACHEDIR="+t.TempDir())
	run(t, env, kubectl, "wait", "-n", suiteNS, "--for=condition=Ready", "--timeout="+waitTimeout.String(),
		"federations.rabbitmq.osh.openstack.org/federation-example")
	if out := run(t, env, kubectl, "get", "-n", suiteNS, "-o", "wide", "rfed", "federation-example"); !strings.Contains(out, "origin") ||
		!strings.Contains(out, "downstream") || !strings.Contains(out, "SuccessfulCreateOrUpdate") {
		t.Fatalf("kubectl get rfed -o wide: %s", out)
	}
	u, err := admin.GetFederationUpstream("downstream", "origin")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(u.Definition.Uri) != fmt.Sprint([]string{amqpURI("upstream")}) || u.Definition.AckMode != "on-confirm" {
		t.Fatalf("federation upstream in the broker: %+v", u.Definition)
	}
	waitReadyNamed(t, &rmqv1.Policy{}, "federation-policy")
	waitReadyNamed(t, &rmqv1.Binding{}, "downstream-binding")
	eventually(t, "a message published upstream reaches downstream-queue", func() error {
		if _, err := publishTo("upstream", "fanout"); err != nil {
			return err
		}
		q, err := admin.GetQueue("downstream", "downstream-queue")
		if err != nil {
			return err
		}
		if q.Messages == 0 {
			return errors.New("no message in downstream-queue")
		}
		return nil
	})

	deleteAndWait(t, objs["Federation/federation-example"].DeepCopy())
	if _, err := admin.GetFederationUpstream("downstream", "origin"); err != nil {
		t.Fatalf("the upstream after deleting a Federation with deletionPolicy retain: %v", err)
	}
	again := upstreamExamples(t, dir, "federations/federation.yaml")[0]
	_ = unstructured.SetNestedField(again.Object, "delete", "spec", "deletionPolicy")
	create(t, again)
	waitReadyNamed(t, &rmqv1.Federation{}, "federation-example")
	deleteAndWait(t, again)
	if _, err := admin.GetFederationUpstream("downstream", "origin"); brokerGone(err) != nil {
		t.Fatalf("the upstream after deleting a Federation with deletionPolicy delete: %v", err)
	}
}

// Upstream's docs/examples/superstream applies with only apiVersion (and
// the cluster name) changed: the SuperStream orders reaches Ready (kubectl
// wait --for=condition=Ready) listing its partitions, and the broker holds
// upstream's super stream: the durable direct exchange orders and the
// streams orders-0, orders-1 and orders-2, each bound with its routing key
// and x-stream-partition-order. An owned Queue resource deleted is written
// again, a fourth partition is added when partitions grows, and deleting the
// SuperStream removes exchange and streams from the broker.
func TestIntegration_Topology_UpstreamExamples_SuperStream(t *testing.T) {
	objs := applyUpstreamExamples(t, "SuperStream", "superstream/superstream.yaml")
	kubectl := stackKubectl(t)
	env := append(os.Environ(), "KUBECONFIG="+stack.Kube.Kubeconfig, "KUBECACHEDIR="+t.TempDir())
	run(t, env, kubectl, "wait", "-n", suiteNS, "--for=condition=Ready", "--timeout="+waitTimeout.String(),
		"superstreams.rabbitmq.osh.openstack.org/orders")
	ss := &rmqv1.SuperStream{}
	if err := kube.Get(bg, types.NamespacedName{Namespace: suiteNS, Name: "orders"}, ss); err != nil ||
		fmt.Sprint(ss.Status.Partitions) != "[orders-0 orders-1 orders-2]" {
		t.Fatalf("status.partitions %v, %v", ss.Status.Partitions, err)
	}
	eventually(t, "the broker holds the super stream", func() error { return superStreamInBroker("orders", 3) })

	part := &rmqv1.Queue{}
	if err := kube.Get(bg, types.NamespacedName{Namespace: suiteNS, Name: "orders-partition-1"}, part); err != nil {
		t.Fatal(err)
	}
	deleteAndWait(t, part)
	waitReadyNamed(t, &rmqv1.Queue{}, "orders-partition-1")
	eventually(t, "the deleted partition is back", func() error { return superStreamInBroker("orders", 3) })

	if err := kube.Patch(bg, ss, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"partitions":4}}`))); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a fourth partition", func() error { return superStreamInBroker("orders", 4) })

	deleteAndWait(t, objs["SuperStream/orders"])
	eventually(t, "exchange and streams leave the broker", func() error {
		if _, err := admin.GetExchange("/", "orders"); brokerGone(err) != nil {
			return fmt.Errorf("exchange orders: %w", brokerGone(err))
		}
		for i := range 4 {
			if _, err := admin.GetQueue("/", fmt.Sprintf("orders-%d", i)); brokerGone(err) != nil {
				return fmt.Errorf("stream orders-%d: %w", i, brokerGone(err))
			}
		}
		return nil
	})
}

// superStreamInBroker reports what the broker lacks of super stream name
// with n partitions keyed by their index: a durable direct exchange name,
// durable streams name-<i>, each bound from it with routing key i and
// x-stream-partition-order i.
func superStreamInBroker(name string, n int) error {
	x, err := admin.GetExchange("/", name)
	if err != nil {
		return fmt.Errorf("exchange %s: %w", name, err)
	}
	if x.Type != "direct" || !x.Durable {
		return fmt.Errorf("exchange %s: type %s, durable %v", name, x.Type, x.Durable)
	}
	for i := range n {
		stream := fmt.Sprintf("%s-%d", name, i)
		q, err := admin.GetQueue("/", stream)
		if err != nil {
			return fmt.Errorf("stream %s: %w", stream, err)
		}
		if q.Type != "stream" || !q.Durable {
			return fmt.Errorf("queue %s: type %s, durable %v", stream, q.Type, q.Durable)
		}
		bs, err := admin.ListQueueBindingsBetween("/", name, stream)
		if err != nil {
			return err
		}
		if len(bs) != 1 || bs[0].RoutingKey != strconv.Itoa(i) || fmt.Sprint(bs[0].Arguments) != fmt.Sprintf("map[x-stream-partition-order:%d]", i) {
			return fmt.Errorf("bindings from %s to %s: %+v", name, stream, bs)
		}
	}
	return nil
}
