//go:build integration

package topology

import (
	"fmt"
	"strings"
	"testing"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// waitRefusal waits until obj reports Ready=False with a message holding
// every part of want.
func waitRefusal(t *testing.T, obj object, want ...string) {
	t.Helper()
	eventually(t, obj.GetName()+" reports the broker's refusal", func() error {
		c, err := readyStatus(obj)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != rmqv1.ReasonFailedCreateOrUpdate {
			return fmt.Errorf("Ready = %+v", c)
		}
		for _, w := range want {
			if !strings.Contains(c.Message, w) {
				return fmt.Errorf("message %q does not say %q", c.Message, w)
			}
		}
		return nil
	})
}

// docs/topology.md, "Reconciliation": a Binding whose source exchange
// nothing declares reports the broker's 404 and its reason, and is declared
// once the Exchange is.
func TestIntegration_Topology_BindingToMissingExchangeReportsTheBroker(t *testing.T) {
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("bound-q"), RabbitmqClusterReference: ref()}}
	create(t, q)
	waitReady(t, q)
	source := uniq("later-ex")
	b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Source: source, Destination: q.Spec.Name,
		DestinationType: "queue", RoutingKey: "k", RabbitmqClusterReference: ref()}}
	create(t, b)
	waitRefusal(t, b, "HTTP 404", fmt.Sprintf("no exchange '%s' in vhost '/'", source))

	ex := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: source, Type: "direct",
		RabbitmqClusterReference: ref()}}
	create(t, ex)
	waitReady(t, b)
	listed, err := admin.ListQueueBindingsBetween("/", source, q.Spec.Name)
	if err != nil || len(listed) != 1 || listed[0].RoutingKey != "k" {
		t.Fatalf("bindings from %s to %s in the broker: %+v, %v", source, q.Spec.Name, listed, err)
	}
}

// A vhost another administrator created, before the controller's user has
// permissions in it: the broker answers 401 "Access refused." to a Queue
// there, which Ready reports as such (not as rabbit-hole's "401
// Unauthorized"); once the permissions are granted the Queue is declared.
func TestIntegration_Topology_AccessRefusedReportsTheBroker(t *testing.T) {
	other, pw := uniq("other-admin"), "other-pw"
	if _, err := admin.PutUser(other, rabbitholeUser(pw)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteUser(other) })
	otherClient, err := rabbithole.NewClient(stack.RabbitMQ.URL, other, pw)
	if err != nil {
		t.Fatal(err)
	}
	vhost := uniq("others-vh")
	if _, err := otherClient.PutVhost(vhost, rabbithole.VhostSettings{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteVhost(vhost) })

	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("refused-q"), Vhost: vhost,
		RabbitmqClusterReference: ref()}}
	create(t, q)
	waitRefusal(t, q, "broker answered HTTP 401: Access refused.")

	if _, err := admin.UpdatePermissionsIn(vhost, stack.RabbitMQ.User, rabbithole.Permissions{Configure: ".*", Write: ".*", Read: ".*"}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, q)
	if _, err := admin.GetQueue(vhost, q.Spec.Name); err != nil {
		t.Fatalf("the queue in the broker: %v", err)
	}
}
