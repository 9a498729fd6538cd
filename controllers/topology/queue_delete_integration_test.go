//go:build integration

package topology

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// docs/topology.md, "Compatibility with the upstream operator": a quorum
// Queue with deleteIfEmpty and deleteIfUnused is deleted when empty and
// unused (the broker refuses those flags on a quorum queue's DELETE, so
// they are checked first), and kept, with a FailedDelete event naming the
// remedy, while it holds a message.
func TestIntegration_Topology_QuorumQueueDeletedWithIfEmptyAndIfUnused(t *testing.T) {
	empty := quorumQueue(uniq("quorum-empty"))
	create(t, empty)
	waitReady(t, empty)
	deleteAndWait(t, empty)
	if _, err := admin.GetQueue("/", empty.Spec.Name); !isNotFound(err) {
		t.Fatalf("empty quorum queue %s still on the broker after its deletion (%v)", empty.Spec.Name, err)
	}

	full := quorumQueue(uniq("quorum-full"))
	create(t, full)
	waitReady(t, full)
	publish(t, full.Spec.Name)
	if err := kube.Delete(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a FailedDelete event names deleteIfEmpty", func() error {
		return eventWith(full, "FailedDelete", "deleteIfEmpty is set")
	})
	if _, err := admin.GetQueue("/", full.Spec.Name); err != nil {
		t.Fatalf("quorum queue holding a message was deleted: %v", err)
	}
	if _, err := admin.PurgeQueue("/", full.Spec.Name); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the purged queue's resource is gone", func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(full), &rmqv1.Queue{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still present (%v)", err)
	})
	if _, err := admin.GetQueue("/", full.Spec.Name); !isNotFound(err) {
		t.Fatalf("purged quorum queue still on the broker (%v)", err)
	}
}

// spec.type wins over an x-queue-type argument, as upstream's: the broker
// declares the type spec.type names.
func TestIntegration_Topology_QueueSpecTypeWinsOverArgument(t *testing.T) {
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("typed")), Spec: rmqv1.QueueSpec{Durable: new(true), RabbitmqClusterReference: ref(),
		Type: "quorum", Arguments: raw(`{"x-queue-type":"classic"}`)}}
	q.Spec.Name = q.Name
	create(t, q)
	waitReady(t, q)
	got, err := admin.GetQueue("/", q.Spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != "quorum" {
		t.Fatalf("broker queue type %q, want quorum (spec.type)", got.Type)
	}
}

func quorumQueue(name string) *rmqv1.Queue {
	return &rmqv1.Queue{ObjectMeta: meta_(name), Spec: rmqv1.QueueSpec{Durable: new(true), RabbitmqClusterReference: ref(), Name: name,
		Type: "quorum", DeleteIfEmpty: true, DeleteIfUnused: true, DeletionPolicy: rmqv1.DeletionPolicyDelete}}
}

// publish puts one message into queue (vhost /) through the management
// API's publish endpoint and fails t unless it was routed.
func publish(t *testing.T, queue string) {
	t.Helper()
	r := stack.RabbitMQ
	body := fmt.Sprintf(`{"properties":{},"routing_key":%q,"payload":"m","payload_encoding":"string"}`, queue)
	req, err := http.NewRequest(http.MethodPost, r.URL+"/api/exchanges/"+url.PathEscape("/")+"/amq.default/publish", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(r.User, r.Password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("publish to %s: %s", queue, resp.Status)
	}
	eventually(t, "the message is counted in "+queue, func() error {
		q, err := admin.GetQueue("/", queue)
		if err != nil {
			return err
		}
		if q.Messages != 1 {
			return fmt.Errorf("%d messages", q.Messages)
		}
		return nil
	})
}

// eventWith returns nil once an Event of reason about obj has a message
// containing text.
func eventWith(obj client.Object, reason, text string) error {
	var evs corev1.EventList
	if err := kube.List(context.Background(), &evs, client.InNamespace(obj.GetNamespace())); err != nil {
		return err
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == obj.GetName() && e.Reason == reason && strings.Contains(e.Message, text) {
			return nil
		}
	}
	return fmt.Errorf("no %s event containing %q", reason, text)
}
